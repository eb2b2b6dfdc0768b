// node:http front of the devnet's toncenter v3 subset: GET with query parameters, POST with a JSON body;
// errors as the indexer writes them (status + {"error"}), unknown paths and oversized bodies as its HTTP
// framework answers them (plain text).
import { createServer, type Server } from 'node:http';
import { BodyTooLarge, readBody } from '../../http-body.ts';
import { ApiError } from './errors.ts';
import type { Route } from './routes.ts';

/** The framework's default request body limit (4 MiB). */
const MAX_BODY = 4 * 1024 * 1024;

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createApiServer(routes: Map<string, Route>, onError: (err: unknown) => void): Server {
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://devnet');
    const method = req.method ?? 'GET';
    const route = routes.get(`${method} ${url.pathname}`);
    if (!route) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Cannot ${method} ${url.pathname}`);
      return;
    }
    let body: unknown;
    if (method === 'POST') {
      let text: string;
      try {
        text = await readBody(req, MAX_BODY);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8' }).end('Request Entity Too Large');
        return;
      }
      try {
        body = JSON.parse(text);
      } catch {
        send(res, 422, { error: 'failed to parse request body as JSON' });
        return;
      }
    }
    try {
      send(res, 200, await route(url.searchParams, body));
    } catch (error) {
      if (error instanceof ApiError) {
        send(res, error.status, { error: error.message });
        return;
      }
      onError(error);
      send(res, 500, {
        error: `internal server error: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  });
}
