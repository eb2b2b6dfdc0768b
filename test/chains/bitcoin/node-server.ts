/**
 * A real HTTP server on 127.0.0.1 standing in for a Bitcoin node (the devnet is written elsewhere): each
 * test says what every request is answered, from the recorded Esplora vectors or Core's documented
 * shapes, and the backends reach it over the real NodeClient.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { NodeClient } from '../../../src/chains/node-client.ts';

export interface Hit {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

export interface Reply {
  status?: number;
  body: string;
  contentType?: string;
}

export type Route = (hit: Hit) => Reply;

export interface NodeServer {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

export async function startNodeServer(route: Route): Promise<NodeServer> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hit: Hit = {
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      };
      hits.push(hit);
      let reply: Reply;
      try {
        reply = route(hit);
      } catch (error) {
        reply = { status: 599, body: String(error) };
      }
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Closable {
  close(): Promise<void>;
}

/** A list of what a test opens (servers, clients): whatever is pushed on it is closed after the test. */
export function closedAfterEachTest(): Closable[] {
  const open: Closable[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  return open;
}

/** An Esplora stand-in answering what `route` knows and 404 `not served` to the rest; closed with `open`. */
export async function startEsploraServer(
  open: Closable[],
  route: (hit: Hit) => Reply | undefined,
): Promise<NodeServer> {
  const server = await startNodeServer((hit) => route(hit) ?? text('not served', 404));
  open.push(server);
  return server;
}

/** A client of the server alone; no retries, so a refused call is seen once. */
export function clientOf(url: string, network: 'mainnet' | 'testnet' = 'mainnet', retries = 0): NodeClient {
  return new NodeClient({ chain: 'bitcoin', network, endpoints: [{ url }], retries, backoffBaseMs: 0 });
}

export const text = (body: string, status = 200): Reply => ({ status, body, contentType: 'text/plain' });
export const json = (value: unknown, status = 200): Reply => ({ status, body: JSON.stringify(value) });

/** esplora_responses.json, parsed as it is (its amounts are satoshi integers, far below 2^53). */
export const ESPLORA: Record<string, Record<string, unknown>> = JSON.parse(
  readFileSync(new URL('../../vectors/esplora_responses.json', import.meta.url), 'utf8'),
);
