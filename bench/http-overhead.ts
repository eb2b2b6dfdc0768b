import { Pool } from 'undici';
import { startGateway } from '../test/helpers/gateway.ts';
import type { Benchmark } from './types.ts';

/** Sends requests with `concurrency` in flight for `durationMs`; returns requests per second. */
async function throughput(pool: Pool, path: string, headers: Record<string, string>, durationMs: number) {
  const concurrency = 32;
  const deadline = Date.now() + durationMs;
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
      await body.dump();
      if (statusCode === 200) done++;
      else failed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failed > 0) throw new Error(`${failed} requests to ${path} failed`);
  return done / ((performance.now() - started) / 1000);
}

/**
 * What authentication, the request quota and the envelope cost per request: an authenticated
 * `GET /api/account` (token lookup, quota reservation, two queries) against `GET /healthz` (no database)
 * on the same gateway in the same run.
 */
export const httpOverhead: Benchmark = {
  name: 'http: authenticated account request vs public health check (SQLite)',
  async run() {
    const gw = await startGateway({ env: { LOG_LEVEL: 'warn' } });
    const { token } = await gw.userToken('bench@example.com', 'enterprise');
    const pool = new Pool(gw.baseUrl, { connections: 32 });
    try {
      await throughput(pool, '/healthz', {}, 500);
      const baseline = await throughput(pool, '/healthz', {}, 3000);
      const measured = await throughput(pool, '/api/account', { authorization: `Bearer ${token}` }, 3000);
      return { unit: 'req/s', baseline, measured };
    } finally {
      await pool.close();
      await gw.close();
    }
  },
};
