import { load, startGatewayProcess, startServerProcess } from './processes.ts';
import type { Plot } from './svg-plot.ts';
import type { Benchmark, Measurement } from './types.ts';

/** An authenticated read whose answer the gateway holds in memory: what the per-request path costs. */
const CACHED_READ = '/api/v2/prices/ETH';

/**
 * Connections of the concurrency sweep: from one client waiting on each answer to the main runs' 32. Half
 * of what one client address may hold (MAX_CONNECTIONS_PER_CLIENT's default, 64): the previous run's
 * connections may not all be closed yet when the next one opens its own.
 */
const SWEEP_CONNECTIONS = [1, 2, 4, 8, 16, 32];
const SWEEP_MS = 1_000;

/** Requests per second at each of SWEEP_CONNECTIONS: a curve of the plot. */
async function sweep(
  name: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<Plot['series'][number]> {
  const points: [number, number][] = [];
  for (const concurrency of SWEEP_CONNECTIONS) {
    const { perSecond } = await load(url, { durationMs: SWEEP_MS, concurrency, headers });
    points.push([concurrency, perSecond]);
  }
  return { name, points };
}

/**
 * Goal 1. An authenticated cached read (the token and plan as authentication keeps them for a
 * second, the rate and the requests quota counted, the envelope; the price itself in memory) and
 * `GET /api/account` (its quotas read from the database) against a bare Fastify route; each server in its
 * own process (the gateway compiled, API role only, logging at the default level to a file), the load
 * generator in a third. The three again at each of SWEEP_CONNECTIONS, plotted. (The gateway's memory:
 * bench/api-memory.ts.)
 */
export const authenticatedRead: Benchmark = {
  name: 'http: authenticated reads vs a bare Fastify route',
  async run() {
    const bare = await startServerProcess<{ url: string }>('bench/serve-bare.ts');
    const bareRuns = async () => ({
      baseline: await load(bare.info.url),
      bareCurve: await sweep('bare Fastify route', bare.info.url),
    });
    const { baseline, bareCurve } = await bareRuns().finally(() => bare.stop());
    const versus = { what: 'bare Fastify route', value: baseline.perSecond };
    const latency = (r: { p50Ms: number; p99Ms: number }) =>
      `p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (bare: p99 ${baseline.p99Ms.toFixed(1)} ms)`;
    const gateway = await startGatewayProcess({ PRICE_PROVIDERS: 'local' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const headers = { authorization: `Bearer ${gateway.info.token}` };
      const cached = await load(`${gateway.info.url}${CACHED_READ}`, { headers });
      const account = await load(`${gateway.info.url}/api/account`, { headers });
      const cachedRead: Measurement = {
        what: `authenticated cached read (GET ${CACHED_READ})`,
        unit: 'req/s',
        measured: cached.perSecond,
        baseline: versus,
        goal: { on: 'ratio', op: '>=', value: 0.5 },
        note: latency(cached),
      };
      const results: Measurement[] = [
        cachedRead,
        {
          what: 'authenticated GET /api/account',
          unit: 'req/s',
          measured: account.perSecond,
          baseline: versus,
          goal: { on: 'ratio', op: '>=', value: 0.5 },
          note: latency(account),
        },
      ];
      const plot: Plot = {
        file: 'http-concurrency.svg',
        title: 'Requests per second by concurrent connections (load generator in its own process)',
        x: { label: 'connections', log: true },
        y: { label: 'requests/s' },
        series: [
          bareCurve,
          await sweep(`GET ${CACHED_READ}`, `${gateway.info.url}${CACHED_READ}`, headers),
          await sweep('GET /api/account', `${gateway.info.url}/api/account`, headers),
        ],
      };
      cachedRead.plot = plot;
      return results;
    } finally {
      await gateway.stop();
    }
  },
};
