// node:http front: JSON-RPC 2.0 over POST, single or batch; every answer is HTTP 200, errors included (a body over the limit: 413).
import { createServer, type Server } from 'node:http';
import { BodyTooLarge, readBody } from '../../http-body.ts';
import { RpcError } from '../errors.ts';
import { isObject, type Json, stringifyJson } from '../json.ts';
import type { MethodContext } from './methods.ts';
import { methods } from './methods.ts';

/** agave's MAX_REQUEST_BODY_SIZE (50 MiB). */
const MAX_BODY = 50 * 1024 * 1024;

const errorBody = (id: Json, code: number, message: string, data?: Json): Json => ({
  jsonrpc: '2.0',
  error: data === undefined ? { code, message } : { code, message, data },
  id,
});

async function answer(call: unknown, ctx: MethodContext, onError: (err: unknown) => void): Promise<Json> {
  if (!isObject(call) || call['jsonrpc'] !== '2.0' || typeof call['method'] !== 'string') {
    return errorBody(null, -32600, 'Invalid request');
  }
  const id = (call['id'] ?? null) as Json;
  const method = methods[call['method']];
  if (!method) return errorBody(id, -32601, 'Method not found');
  const params = call['params'] === undefined ? [] : call['params'];
  if (!Array.isArray(params))
    return errorBody(id, -32602, 'Invalid params: invalid type: expected a sequence.');
  try {
    return { jsonrpc: '2.0', result: await method(params, ctx), id };
  } catch (err) {
    if (err instanceof RpcError) return errorBody(id, err.code, err.message, err.data);
    onError(err);
    return errorBody(id, -32603, 'Internal error');
  }
}

export function createRpcServer(ctx: MethodContext, onError: (err: unknown) => void = () => {}): Server {
  return createServer(async (req, res) => {
    let out: Json;
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let text: string;
    try {
      text = await readBody(req, MAX_BODY);
    } catch (error) {
      // As agave's RPC: a body over its limit is HTTP 413, not a JSON-RPC error.
      if (!(error instanceof BodyTooLarge)) throw error;
      res.writeHead(413).end();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) out = errorBody(null, -32700, 'Parse error');
    else if (Array.isArray(parsed)) out = await Promise.all(parsed.map((c) => answer(c, ctx, onError)));
    else out = await answer(parsed, ctx, onError);
    const body = stringifyJson(out);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}
