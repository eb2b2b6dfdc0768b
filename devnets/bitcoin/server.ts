// One node:http server for both fronts: POST /rpc (and POST /) is Bitcoin Core's JSON-RPC behind basic
// auth; everything else is Esplora REST. Bodies over 4 MB are answered 413.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '../http-body.ts';
import { RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR, RpcError } from './errors.ts';
import { type EsploraContext, esploraRoute, type Reply } from './esplora.ts';
import { type Json, stringifyJson } from './json.ts';
import { callRpc, type RpcContext } from './rpc.ts';

export const MAX_BODY = 4 * 1024 * 1024;
export const RPC_USER = 'devnet';
export const RPC_PASSWORD = 'devnet';
const AUTH = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;

function send(res: ServerResponse, reply: Reply): void {
  const body =
    reply.type === 'json' ? stringifyJson(reply.body) : reply.type === 'text' ? reply.body : reply.body;
  const type =
    reply.type === 'json'
      ? 'application/json'
      : reply.type === 'text'
        ? 'text/plain'
        : 'application/octet-stream';
  res.writeHead(reply.status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

interface RpcAnswer {
  status: number;
  body: Json | undefined;
}

function errorJson(err: unknown, onError: (e: unknown) => void): { code: number; message: string } {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  onError(err);
  return { code: -1, message: err instanceof Error ? err.message : String(err) };
}

// One request object: JSON-RPC 1.0 (legacy: result and error both present, HTTP 500/404 on errors) or
// 2.0 (Core 28: HTTP 200, only one of result/error, no answer to a notification).
async function answerOne(
  ctx: RpcContext,
  request: unknown,
  onError: (e: unknown) => void,
): Promise<RpcAnswer> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return {
      status: 400,
      body: {
        result: null,
        error: { code: RPC_INVALID_REQUEST, message: 'Invalid Request object' },
        id: null,
      },
    };
  }
  const r = request as Record<string, unknown>;
  const v2 = r['jsonrpc'] === '2.0';
  const id = (r['id'] ?? null) as Json;
  try {
    if (typeof r['method'] !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string');
    const result = await callRpc(ctx, r['method'], r['params']);
    if (v2) return { status: 200, body: 'id' in r ? { jsonrpc: '2.0', result, id } : undefined };
    return { status: 200, body: { result, error: null, id } };
  } catch (err) {
    const error = errorJson(err, onError);
    if (v2) return { status: 200, body: 'id' in r ? { jsonrpc: '2.0', error, id } : undefined };
    const status = error.code === RPC_METHOD_NOT_FOUND ? 404 : error.code === RPC_INVALID_REQUEST ? 400 : 500;
    return { status, body: { result: null, error, id } };
  }
}

async function answerRpc(
  ctx: RpcContext,
  req: IncomingMessage,
  body: string,
  onError: (e: unknown) => void,
): Promise<RpcAnswer | null> {
  if (req.headers.authorization !== AUTH) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {
      status: 500,
      body: { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null },
    };
  }
  if (Array.isArray(parsed)) {
    const answers = await Promise.all(parsed.map((r) => answerOne(ctx, r, onError)));
    return { status: 200, body: answers.map((a) => a.body).filter((b): b is Json => b !== undefined) };
  }
  return answerOne(ctx, parsed, onError);
}

export function createBitcoinServer(ctx: EsploraContext & RpcContext, onError: (e: unknown) => void): Server {
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://devnet');
      let body: string;
      try {
        body = await readBody(req, MAX_BODY);
      } catch (err) {
        if (err instanceof BodyTooLarge) {
          send(res, { status: 413, type: 'text', body: 'Payload Too Large' });
          return;
        }
        throw err;
      }
      const path = url.pathname.replace(/\/+$/, '') || '/';
      if (path === '/rpc' && req.method !== 'POST') {
        send(res, { status: 405, type: 'text', body: 'JSONRPC server handles only POST requests' });
        return;
      }
      if (req.method === 'POST' && (path === '/rpc' || path === '/')) {
        const answer = await answerRpc(ctx, req, body, onError);
        if (!answer) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="jsonrpc"', 'content-length': 0 });
          res.end();
          return;
        }
        if (answer.body === undefined) {
          res.writeHead(204).end();
          return;
        }
        send(res, { status: answer.status, type: 'json', body: answer.body });
        return;
      }
      send(res, await esploraRoute(ctx, req.method ?? 'GET', path, body));
    } catch (err) {
      onError(err);
      send(res, { status: 500, type: 'text', body: err instanceof Error ? err.message : String(err) });
    }
  });
}
