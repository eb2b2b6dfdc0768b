import { load, startGatewayProcess, startServerProcess } from './processes.ts';
import type { Benchmark, Measurement } from './types.ts';

/** An authenticated read whose answer the gateway holds in memory: what the per-request path costs. */
const CACHED_READ = '/api/v2/prices/ETH';

/**
 * Goals 1 and 6. An authenticated cached read (the token and plan read in one query, the requests quota
 * counted, the envelope; the price itself in memory) and `GET /api/account` (four more queries) against
 * a bare Fastify route; each server in its own process (the gateway compiled, API role only, logging at
 * the default level to a file), the load generator in a third. (Its memory: bench/api-memory.ts.)
 */
export const authenticatedRead: Benchmark = {
  name: 'http: authenticated reads vs a bare Fastify route',
  async run() {
    const bare = await startServerProcess<{ url: string }>('bench/serve-bare.ts');
    const baseline = await load(bare.info.url).finally(() => bare.stop());
    const versus = { what: 'bare Fastify route', value: baseline.perSecond };
    const latency = (r: { p50Ms: number; p99Ms: number }) =>
      `p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (bare: p99 ${baseline.p99Ms.toFixed(1)} ms)`;
    const gateway = await startGatewayProcess({ PRICE_PROVIDERS: 'local' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const headers = { authorization: `Bearer ${gateway.info.token}` };
      const cached = await load(`${gateway.info.url}${CACHED_READ}`, { headers });
      const account = await load(`${gateway.info.url}/api/account`, { headers });
      const results: Measurement[] = [
        {
          what: `authenticated cached read (GET ${CACHED_READ})`,
          unit: 'req/s',
          measured: cached.perSecond,
          baseline: versus,
          goal: { on: 'ratio', op: '>=', value: 0.5 },
          note: latency(cached),
        },
        {
          what: 'authenticated GET /api/account',
          unit: 'req/s',
          measured: account.perSecond,
          baseline: versus,
          note: latency(account),
        },
      ];
      return results;
    } finally {
      await gateway.stop();
    }
  },
};
