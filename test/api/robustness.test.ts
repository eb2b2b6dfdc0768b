import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway, UNLIMITED_PLAN_ENV } from '../helpers/gateway.ts';
import { OFFLINE_NODES_ENV } from '../helpers/offline-nodes.ts';
import { rawHttpExchange } from '../helpers/raw-http.ts';

let gw: TestGateway;
let token: string;

beforeAll(async () => {
  // Nodes that refuse connections: whatever reaches a node fails fast, and must fail cleanly.
  gw = await startGateway({
    env: {
      ...OFFLINE_NODES_ENV,
      // No rate limit: each of the hundreds of requests below must reach the code under test, not a 429.
      ...UNLIMITED_PLAN_ENV,
    },
  });
  ({ token } = await gw.userToken());
});
afterAll(() => gw?.close());

/** Sends bytes as they are over TCP and returns the status line's code (0 if the server just closed). */
async function rawRequest(bytes: string | Buffer): Promise<number> {
  return (await rawHttpExchange(gw.baseUrl, bytes, { halfClose: true })).status;
}

describe('malformed input never yields a 500', () => {
  const routes = [
    '/api/account',
    '/api/v2/tron/faucet',
    '/v2/x/y',
    '/healthz',
    '/openapi.json',
    '/api/v2/tron/transactions',
    '/api/v2/tron/transactions/trc20',
    '/api/v2/tron/transactions/broadcast',
    '/api/v2/tron/addresses',
    '/api/v2/tron/addresses/import',
    '/api/v2/tron/freeze',
  ];
  const bodies: [string, string | Uint8Array][] = [
    ['application/json', '{"a":'],
    ['application/json', '\u0000\u0001'],
    ['application/json', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['],
    ['application/json', '1e999999999'],
    ['application/json', '{"amount": -1e-400, "x": "\\ud800"}'],
    ['application/x-www-form-urlencoded', '%%%=%zz&a[b]=c&&&='],
    ['multipart/form-data', '--x\r\ngarbage'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--x--'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
    ],
    ['application/xml', '<a/>'],
    ['application/json; charset=utf-16', '{}'],
    ['application/json', new Uint8Array([0xff, 0xfe, 0xfd])],
  ];

  it('for odd bodies on every kind of route', async () => {
    for (const url of routes) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const [contentType, raw] of bodies) {
          const res = await gw.request(method, url, { token, raw, headers: { 'content-type': contentType } });
          expect(res.status, `${method} ${url} ${contentType}`).toBeLessThan(500);
          // Some odd bodies are still valid for a route without required fields; all answer in the envelope.
          expect(res.body, `${method} ${url} ${contentType}`).toMatchObject({
            ok: res.status < 400,
            status: res.status,
          });
        }
      }
    }
  });

  it('for odd paths, queries and headers', async () => {
    const cases: [string, Record<string, string>][] = [
      ['/api/v2/%E0%A4%A', {}],
      ['/api/account?page[]=1&page=%zz', {}],
      ['/api/v2/' + 'a'.repeat(5000), {}],
      ['/api/account', { authorization: 'Bearer ' + 'x'.repeat(6000) }],
      ['/api/account', { 'x-network': ' ' }],
      ['/api/account', { 'x-request-id': '../../etc/passwd' }],
      ['//api//account', {}],
    ];
    for (const [url, headers] of cases) {
      const res = await gw.request('GET', url, { token, headers });
      expect(res.status, url.slice(0, 40)).toBeLessThan(500);
    }
  });

  it('for broken HTTP framing', async () => {
    const statuses = await Promise.all([
      rawRequest('GET /api/account HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      rawRequest(
        'POST /api/account HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 11\r\n\r\n0123456789',
      ),
      rawRequest('POST /api/account HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'),
      rawRequest('BREW /api/account HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]);
    for (const status of statuses)
      expect(status === 0 || (status >= 400 && status < 500), String(status)).toBe(true);
  });

  it('for well-formed requests whose node is down: 503, not 500', async () => {
    const from = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
    const cases: [string, string, unknown][] = [
      ['GET', '/api/v2/tron/blocks/number', undefined],
      ['GET', `/api/v2/tron/balances/${from}`, undefined],
      ['POST', '/api/v2/tron/transactions', { from, to: from, amount: '1', privatekey: 'ab'.repeat(32) }],
    ];
    for (const [method, url, json] of cases) {
      const res = await gw.request(method, url, { token, ...(json === undefined ? {} : { json }) });
      expect(res.status, url).toBe(503);
      expect(res.body.message).toBe('tron mainnet node unavailable, try again later');
      expect(res.text).not.toContain('127.0.0.1');
    }
  });

  it('keeps serving after all of it', async () => {
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(200);
    const unhandled = gw.logLines.filter((line) => line.includes('unhandled error'));
    expect(unhandled).toEqual([]);
  });
});
