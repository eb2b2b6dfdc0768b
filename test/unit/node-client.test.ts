import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  NodeClient,
  type NodeClientOptions,
  type NodeEndpoint,
  NodeHttpError,
  NodeUnavailableError,
} from '../../src/chains/node-client.ts';
import { listenUntilTestEnds } from '../helpers/test-server.ts';

interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Client port: equal across requests when a kept-alive connection is reused. */
  remotePort: number | undefined;
}

interface TestServer {
  url: string;
  hits: Hit[];
}

type Handler = (res: ServerResponse, hit: Hit, index: number, req: IncomingMessage) => void;

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A real HTTP server on 127.0.0.1 recording every request it gets. */
async function startServer(handler: Handler): Promise<TestServer> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        remotePort: req.socket.remotePort,
      };
      hits.push(hit);
      handler(res, hit, hits.length - 1, req);
    });
  });
  return { url: await listenUntilTestEnds(server), hits };
}

/** A URL on which nothing listens, so connections are refused. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function client(options: Partial<NodeClientOptions> & Pick<NodeClientOptions, 'endpoints'>): NodeClient {
  const nodeClient = new NodeClient({
    chain: 'tron',
    network: 'testnet',
    timeoutMs: 200,
    retries: 3,
    backoffBaseMs: 5,
    backoffMaxMs: 50,
    ...options,
  });
  cleanups.push(() => nodeClient.close());
  return nodeClient;
}

async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

describe('NodeClient', () => {
  it('joins the base path, merges the endpoint query and sends the endpoint headers', async () => {
    const server = await startServer((res) => json(res, 200, { blockID: 'abc', number: 42 }));
    const nodeClient = client({
      endpoints: [{ url: `${server.url}/rpc/abc?api-key=k-123`, headers: { 'TRON-PRO-API-KEY': 'key-456' } }],
      // One request, counted: a first connection on a loaded machine must not time out into a retry.
      timeoutMs: 5000,
    });

    const block = await nodeClient.getJson<{ number: number }>('/wallet/getnowblock?visible=true');

    expect(block).toEqual({ blockID: 'abc', number: 42 });
    expect(server.hits).toHaveLength(1);
    expect(server.hits[0]!.method).toBe('GET');
    expect(server.hits[0]!.url).toBe('/rpc/abc/wallet/getnowblock?api-key=k-123&visible=true');
    expect(server.hits[0]!.headers['tron-pro-api-key']).toBe('key-456');
    expect(server.hits[0]!.headers['accept']).toBe('application/json');
    // Keep-alive: sequential requests reuse pooled connections.
    for (let i = 0; i < 5; i++) await nodeClient.getJson('/wallet/getnowblock');
    expect(new Set(server.hits.map((hit) => hit.remotePort)).size).toBeLessThan(server.hits.length);
  });

  it('serves many requests at once without a listener-leak warning (each listens on the close signal)', async () => {
    const server = await startServer((res) => json(res, 200, { ok: true }));
    const nodeClient = client({ endpoints: [{ url: server.url }] });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      await Promise.all(Array.from({ length: 30 }, () => nodeClient.getJson('/status')));
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(server.hits).toHaveLength(30);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('posts JSON to the endpoint URL itself for JSON-RPC', async () => {
    const server = await startServer((res, hit) => {
      const call = JSON.parse(hit.body) as { id: number };
      json(res, 200, { jsonrpc: '2.0', id: call.id, result: '0x10' });
    });
    const nodeClient = client({ endpoints: [{ url: `${server.url}/v2/project` }] });

    const answer = await nodeClient.postJson<{ result: string }>('', {
      jsonrpc: '2.0',
      id: 7,
      method: 'eth_blockNumber',
      params: [],
    });

    expect(answer).toEqual({ jsonrpc: '2.0', id: 7, result: '0x10' });
    expect(server.hits[0]!.url).toBe('/v2/project');
    expect(server.hits[0]!.method).toBe('POST');
    expect(server.hits[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.hits[0]!.body)).toMatchObject({ method: 'eth_blockNumber', id: 7 });
  });

  it('reads text and sends raw text bodies (Esplora)', async () => {
    const server = await startServer((res, hit) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(hit.method === 'POST' ? `txid-for-${hit.body}` : '812345');
    });
    const nodeClient = client({ endpoints: [{ url: `${server.url}/api/` }] });

    expect(await nodeClient.getText('/blocks/tip/height')).toBe('812345');
    const txid = await nodeClient.request<string>({
      method: 'POST',
      path: '/tx',
      rawBody: '0200abcd',
      parse: 'text',
    });

    expect(txid).toBe('txid-for-0200abcd');
    expect(server.hits.map((hit) => hit.url)).toEqual(['/api/blocks/tip/height', '/api/tx']);
    expect(server.hits[1]!.headers['content-type']).toBe('text/plain');
  });

  it('turns credentials in the endpoint URL into basic auth', async () => {
    const server = await startServer((res) => json(res, 200, {}));
    const nodeClient = client({
      endpoints: [{ url: server.url.replace('http://', 'http://rpc%20user:p%40ss@') }],
    });

    await nodeClient.getJson('/');

    const expected = 'Basic ' + Buffer.from('rpc user:p@ss').toString('base64');
    expect(server.hits[0]!.headers['authorization']).toBe(expected);
    expect(server.hits[0]!.url).toBe('/');
  });

  it('retries a 500 and returns the next success', async () => {
    const server = await startServer((res, _hit, index) =>
      index === 0 ? json(res, 500, { error: 'boom' }) : json(res, 200, { ok: true }),
    );
    const nodeClient = client({ endpoints: [{ url: server.url }] });

    expect(await nodeClient.getJson('/x')).toEqual({ ok: true });
    expect(server.hits).toHaveLength(2);
  });

  it('honours Retry-After in seconds on a 429, capped at backoffMaxMs', async () => {
    const server = await startServer((res, _hit, index) =>
      index === 0
        ? json(res, 429, { error: 'slow down' }, { 'retry-after': '1' })
        : json(res, 200, { ok: 1 }),
    );
    // Jitter alone would wait at most 5 ms here; Retry-After (1 s) is capped to 150 ms.
    const nodeClient = client({ endpoints: [{ url: server.url }], backoffMaxMs: 150 });

    const started = performance.now();
    expect(await nodeClient.getJson('/x')).toEqual({ ok: 1 });
    const elapsed = performance.now() - started;

    expect(server.hits).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(900);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const server = await startServer((res, _hit, index) =>
      index === 0
        ? json(res, 503, {}, { 'retry-after': new Date(Date.now() + 5000).toUTCString() })
        : json(res, 200, { ok: 2 }),
    );
    const nodeClient = client({ endpoints: [{ url: server.url }], backoffMaxMs: 150 });

    const started = performance.now();
    expect(await nodeClient.getJson('/x')).toEqual({ ok: 2 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('times out a hanging endpoint, fails over, and starts the next request on the healthy one', async () => {
    const hanging = await startServer(() => {
      // Never answers.
    });
    const healthy = await startServer((res) => json(res, 200, { from: 'healthy' }));
    const nodeClient = client({ endpoints: [{ url: hanging.url }, { url: healthy.url }] });

    let started = performance.now();
    expect(await nodeClient.getJson('/x')).toEqual({ from: 'healthy' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(hanging.hits).toHaveLength(1);

    started = performance.now();
    expect(await nodeClient.getJson('/y')).toEqual({ from: 'healthy' });
    expect(performance.now() - started).toBeLessThan(150);
    expect(hanging.hits).toHaveLength(1);
    expect(healthy.hits).toHaveLength(2);
  });

  it('times out a body that stalls after the headers', async () => {
    const stalling = await startServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const healthy = await startServer((res) => json(res, 200, { complete: true }));
    const nodeClient = client({ endpoints: [{ url: stalling.url }, { url: healthy.url }] });

    expect(await nodeClient.getJson('/x')).toEqual({ complete: true });
    expect(stalling.hits).toHaveLength(1);
  });

  it('retries a 200 whose body is not JSON', async () => {
    const server = await startServer((res, _hit, index) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(index === 0 ? '<html>gateway hiccup' : '{"ok":true}');
    });
    const nodeClient = client({ endpoints: [{ url: server.url }] });

    expect(await nodeClient.getJson('/x')).toEqual({ ok: true });
    expect(server.hits).toHaveLength(2);
  });

  it('takes a JSON body sent with an answer status as the answer (Bitcoin Core errors), once', async () => {
    const answer = { result: null, error: { code: -5, message: 'Block not found' }, id: 1 };
    const server = await startServer((res, _hit, index) =>
      index < 2 ? json(res, index === 0 ? 500 : 404, answer) : res.writeHead(500).end('<html>proxy'),
    );
    const nodeClient = client({ endpoints: [{ url: server.url }], retries: 1 });
    const call = (parse: 'json' | 'text') =>
      nodeClient.request({ method: 'POST', path: '', body: {}, parse, answerStatuses: [404, 500] });

    expect(await call('json')).toEqual(answer);
    expect(await call('text')).toBe(JSON.stringify(answer));
    expect(server.hits).toHaveLength(2);
    // A body that is not JSON keeps the status's own handling: retried, then unavailable.
    expect(await caught(call('json'))).toBeInstanceOf(NodeUnavailableError);
    expect(server.hits).toHaveLength(4);
  });

  it('surfaces a 404 at once, with status and body, without retrying', async () => {
    const server = await startServer((res) => json(res, 404, { error: 'no such account' }));
    const backup = await startServer((res) => json(res, 200, {}));
    const nodeClient = client({ endpoints: [{ url: server.url }, { url: backup.url }] });

    const error = await caught(nodeClient.getJson('/wallet/getaccount?address=TXYZ'));

    expect(error).toBeInstanceOf(NodeHttpError);
    const httpError = error as NodeHttpError;
    expect(httpError.status).toBe(404);
    expect(httpError.body).toBe('{"error":"no such account"}');
    expect(httpError.chain).toBe('tron');
    expect(httpError.network).toBe('testnet');
    expect(httpError.message).toContain('HTTP 404');
    expect(httpError.message).toContain('/wallet/getaccount');
    expect(httpError.message).not.toContain('address=TXYZ');
    expect(server.hits).toHaveLength(1);
    expect(backup.hits).toHaveLength(0);
  });

  it('truncates long 4xx bodies and scrubs endpoint secrets a node echoes back', async () => {
    const server = await startServer((res, hit) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`Cannot GET ${hit.url} with key ${String(hit.headers['x-api-key'])} ${'x'.repeat(5000)}`);
    });
    const nodeClient = client({
      endpoints: [
        {
          url: `${server.url}/secret-path-789?api-key=query-secret`,
          headers: { 'x-api-key': 'header-secret' },
        },
      ],
    });

    const error = (await caught(nodeClient.getJson('/thing'))) as NodeHttpError;

    expect(error.status).toBe(400);
    expect(error.body.length).toBeLessThanOrEqual(2000);
    for (const text of [error.message, error.body]) {
      expect(text).toContain('Cannot GET');
      expect(text).not.toContain('secret-path-789');
      expect(text).not.toContain('query-secret');
      expect(text).not.toContain('header-secret');
    }
    expect(error.message.length).toBeLessThan(400);
  });

  it('throws NodeUnavailableError naming chain and network, never secrets, when every endpoint fails', async () => {
    const failing = await startServer((res, hit) => json(res, 503, { echo: hit.url }));
    const endpoints: NodeEndpoint[] = [
      {
        url: `${await deadUrl()}/key-in-path-aaa?token=query-token-bbb`,
        headers: { authorization: 'Bearer header-ccc' },
      },
      {
        url: `${failing.url}/key-in-path-ddd?apikey=query-token-eee`,
        headers: { 'x-api-key': 'header-fff' },
      },
      { url: `http://user:password-ggg@${(await deadUrl()).slice('http://'.length)}/` },
    ];
    const nodeClient = client({ endpoints });

    const error = await caught(nodeClient.getJson('/wallet/getnowblock?visible=true'));

    expect(error).toBeInstanceOf(NodeUnavailableError);
    const unavailable = error as NodeUnavailableError;
    expect(unavailable.message).toMatch(/^tron testnet node unavailable after 4 attempts: /);
    expect(unavailable.attempts).toBe(4);
    expect(unavailable.reasons).toHaveLength(4);
    expect(unavailable.reasons[1]).toContain('HTTP 503');
    expect(unavailable.reasons[0]).toMatch(/ECONNREFUSED/);
    const everything = JSON.stringify({ message: unavailable.message, reasons: unavailable.reasons });
    // The 503 body echoes the request URL: the endpoint's path and query are scrubbed from it.
    expect(unavailable.reasons[1]).toContain('***/wallet/getnowblock');
    for (const secret of ['aaa', 'bbb', 'ccc', 'ddd', 'eee', 'fff', 'ggg', 'password', 'Bearer']) {
      expect(everything).not.toContain(secret);
    }
    expect(failing.hits).toHaveLength(1);
  });

  it('goes round robin over failing endpoints', async () => {
    const order: string[] = [];
    const servers = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        startServer((res) => {
          order.push(name);
          json(res, 502, {});
        }),
      ),
    );
    const nodeClient = client({ endpoints: servers.map((server) => ({ url: server.url })), retries: 4 });

    const error = (await caught(nodeClient.getJson('/x'))) as NodeUnavailableError;

    expect(order).toEqual(['a', 'b', 'c', 'a', 'b']);
    expect(error.attempts).toBe(5);
  });

  it('passes over an unhealthy endpoint until its cool-down ends, then prefers it again', async () => {
    let primaryUp = false;
    const primary = await startServer((res) =>
      primaryUp ? json(res, 200, { from: 'primary' }) : json(res, 500, {}),
    );
    const secondary = await startServer((res) => json(res, 200, { from: 'secondary' }));
    const nodeClient = client({ endpoints: [{ url: primary.url }, { url: secondary.url }], cooldownMs: 150 });

    expect(await nodeClient.getJson('/1')).toEqual({ from: 'secondary' });
    primaryUp = true;
    expect(await nodeClient.getJson('/2')).toEqual({ from: 'secondary' });
    expect(primary.hits).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, 170));
    expect(await nodeClient.getJson('/3')).toEqual({ from: 'primary' });
    expect(primary.hits).toHaveLength(2);
  });

  it('with one endpoint keeps retrying it', async () => {
    const server = await startServer((res) => json(res, 500, {}));
    const nodeClient = client({ endpoints: [{ url: server.url }], retries: 2 });

    const error = (await caught(nodeClient.getJson('/x'))) as NodeUnavailableError;

    expect(error.message).toMatch(
      /^tron testnet node unavailable after 3 attempts: 127\.0\.0\.1:\d+ answered HTTP 500/,
    );
    expect(server.hits).toHaveLength(3);
  });

  it('stops at once when the caller aborts, without further retries', async () => {
    const server = await startServer(() => {
      // Never answers.
    });
    const nodeClient = client({ endpoints: [{ url: server.url }], timeoutMs: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);

    const started = performance.now();
    const error = await caught(nodeClient.getJson('/x', controller.signal));

    expect(error.message).toBe('shutting down');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.hits).toHaveLength(1);
  });

  it('rejects bad configuration without echoing endpoint URLs', () => {
    expect(() => new NodeClient({ chain: 'tron', network: 'testnet', endpoints: [] })).toThrow(
      /no node endpoints/,
    );
    expect(
      () =>
        new NodeClient({ chain: 'tron', network: 'testnet', endpoints: [{ url: 'not a url secret-999' }] }),
    ).toThrow(/^tron testnet: node endpoint 1 has an invalid URL$/);
    expect(
      () => new NodeClient({ chain: 'tron', network: 'testnet', endpoints: [{ url: 'ftp://host/secret' }] }),
    ).toThrow(/must use http or https/);
    expect(
      () =>
        new NodeClient({ chain: 'tron', network: 'testnet', endpoints: [{ url: 'http://x' }], retries: -1 }),
    ).toThrow(RangeError);
  });

  it('keeps endpoint headers out of what console.log shows', async () => {
    const { inspect } = await import('node:util');
    const nodeClient = client({
      endpoints: [{ url: 'http://127.0.0.1:1/k', headers: { 'x-api-key': 'inspect-secret' } }],
    });
    expect(inspect(nodeClient, { depth: 5 })).not.toContain('inspect-secret');
  });
});
