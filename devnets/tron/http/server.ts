// node:http front for the java-tron servlet subset: HTTP 200 for every business answer,
// 413 for bodies over the node's max message size, {"Error": "<class> : <msg>"} for servlet errors.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { BodyTooLarge, readBody } from '../../http-body.ts';
import { isObject, type Json, JsonSyntaxError, parseJson, stringifyJson } from '../json.ts';

/** java-tron's default node.http.maxMessageSize (4 MiB). */
const MAX_BODY = 4 * 1024 * 1024;

export interface NodeRequest {
  /** Query parameters merged with the JSON body. */
  params: Record<string, Json>;
  visible: boolean;
  /** True under /walletsolidity/: answer from the solidified block. */
  solidity: boolean;
  method: string;
}

export type Handler = (req: NodeRequest) => unknown;

/** Mirrors Util.processError: the Java exception class and message. */
export class ServletError extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Routes {
  wallet: Record<string, Handler>;
  solidity: Record<string, Handler>;
}

function visibleOf(v: Json | undefined): boolean {
  return v === true || (typeof v === 'string' && v.toLowerCase() === 'true');
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function createNodeServer(routes: Routes, onError: (err: unknown) => void = () => {}): Server {
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://devnet');
      const m = /^\/(wallet|walletsolidity)\/([a-z0-9]+)\/?$/i.exec(url.pathname);
      const table = m?.[1]?.toLowerCase() === 'walletsolidity' ? routes.solidity : routes.wallet;
      const handler = m ? table[(m[2] as string).toLowerCase()] : undefined;
      if (!handler) {
        send(res, 404, stringifyJson({ Error: `no such endpoint ${url.pathname}` }));
        return;
      }
      const params: Record<string, Json> = {};
      for (const [k, v] of url.searchParams) params[k] = v;
      let body: string;
      try {
        body = await readBody(req, MAX_BODY);
      } catch (err) {
        if (err instanceof BodyTooLarge) {
          send(res, 413, '');
          return;
        }
        throw err;
      }
      if (body.trim()) {
        let parsed: Json;
        try {
          parsed = parseJson(body);
        } catch (err) {
          const msg = err instanceof JsonSyntaxError ? err.message : String(err);
          send(res, 200, stringifyJson({ Error: `class com.alibaba.fastjson.JSONException : ${msg}` }));
          return;
        }
        if (isObject(parsed)) Object.assign(params, parsed);
      }
      const out = await handler({
        params,
        visible: visibleOf(params['visible']),
        solidity: table === routes.solidity,
        method: req.method ?? 'GET',
      });
      send(res, 200, stringifyJson(out));
    } catch (err) {
      if (err instanceof ServletError) {
        send(res, 200, stringifyJson({ Error: `${err.javaClass} : ${err.message}` }));
        return;
      }
      onError(err);
      const msg = err instanceof Error ? err.message : String(err);
      send(res, 200, stringifyJson({ Error: `class java.lang.RuntimeException : ${msg}` }));
    }
  });
}
