import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
});

/** The log lines written for one request id. */
function linesOf(requestId: string): Record<string, unknown>[] {
  return gw.logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['requestId'] === requestId);
}

/** The answer is sent before onResponse runs: wait for the line rather than race it. */
async function requestLine(requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const line = linesOf(requestId).find((l) => l['msg'] === 'request');
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no request line for ${requestId}`);
}

// Request ids of the gateway's own shape (a UUID), which it keeps.
const LOG_TEST_1 = '0b8e4f0a-3c1d-4b7e-9a52-6f1e2d3c4b01';
const LOG_TEST_2 = '0b8e4f0a-3c1d-4b7e-9a52-6f1e2d3c4b02';

describe('request log', () => {
  it('writes one line per request with method, route pattern, status, duration, request id and user id', async () => {
    const { token, userId } = await gw.userToken();
    const password = 'correct horse battery';
    const res = await gw.request('POST', '/api/v2/tron/addresses?secret=query-value-123', {
      token,
      headers: { 'x-request-id': LOG_TEST_1 },
      json: { password },
    });
    expect(res.status).toBe(201);
    const line = await requestLine(LOG_TEST_1);
    expect(line).toMatchObject({
      level: 30,
      method: 'POST',
      route: '/api/v2/tron/addresses',
      status: 201,
      userId,
    });
    expect(line['durationMs']).toEqual(expect.any(Number));
    expect(line['req']).toBeUndefined();
    expect(line['res']).toBeUndefined();
    const all = JSON.stringify(linesOf(LOG_TEST_1));
    expect(linesOf(LOG_TEST_1)).toHaveLength(1);
    for (const secret of [password, token, 'query-value-123', res.body.data.address]) {
      expect(all).not.toContain(secret);
    }
  });

  it('logs an unknown route by its path, without the query and cut short', async () => {
    const res = await gw.request('GET', `/nowhere/${'x'.repeat(500)}?token=swy_abcdefghijklmnop`, {
      headers: { 'x-request-id': LOG_TEST_2 },
    });
    expect(res.status).toBe(404);
    const line = await requestLine(LOG_TEST_2);
    expect(line).toMatchObject({ method: 'GET', status: 404 });
    expect(line['userId']).toBeUndefined();
    expect(String(line['route'])).toMatch(/^\/nowhere\/x+…$/);
    expect(String(line['route']).length).toBeLessThanOrEqual(121);
    expect(JSON.stringify(linesOf(LOG_TEST_2))).not.toContain('swy_');
  });

  it('formats lines for a terminal with LOG_FORMAT=pretty, secrets still redacted', () => {
    const chunks: string[] = [];
    const logger = createLogger('info', { write: (chunk: string) => chunks.push(chunk) }, 'pretty');
    logger.info({ route: '/healthz', password: 'hunter22' }, 'request');
    const text = chunks.join('');
    expect(text).toContain('request');
    expect(text).toContain('/healthz');
    expect(text).not.toContain('hunter22');
    expect(() => JSON.parse(text)).toThrow();
  });
});
