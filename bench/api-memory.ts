import { load, startGatewayProcess, startServerProcess } from './processes.ts';
import type { Benchmark, Measurement } from './types.ts';

/** The authenticated read the soak repeats: the whole per-request path, the answer held in memory. */
const SOAK_READ = '/api/v2/prices/ETH';
const SOAK_REQUESTS = 1_000_000;
/** Long enough for a million requests on a slow machine; the request count ends the run first. */
const SOAK_MAX_MS = 30 * 60_000;

/**
 * The API role's resident memory: idle after start, and through a soak of a million authenticated reads
 * from the load generator in its own process, sampled every second from /proc. The gateway is compiled
 * and runs the API role alone with every chain configured (each family's public endpoints), as
 * `npm start` would; a family's chain library loads only when a chain of it is first used, which no read
 * here does. Baseline: a bare Fastify server's process, idle, in the same run.
 */
export const apiMemory: Benchmark = {
  name: 'memory: API role resident memory, idle and over a 1,000,000-request soak',
  async run() {
    const bare = await startServerProcess<{ url: string }>('bench/serve-bare.ts');
    await settle();
    const baseline = { what: 'bare Fastify server process (through tsx), idle', value: bare.rssMiB() };
    await bare.stop();
    const gateway = await startGatewayProcess({ PRICE_PROVIDERS: 'local' });
    try {
      await settle();
      const idle = gateway.rssMiB();
      const started = performance.now();
      const samples: [seconds: number, mib: number][] = [[0, idle]];
      const sampler = setInterval(() => {
        samples.push([(performance.now() - started) / 1000, gateway.rssMiB()]);
      }, 1000);
      const soak = await load(`${gateway.info.url}${SOAK_READ}`, {
        headers: { authorization: `Bearer ${gateway.info.token}` },
        durationMs: SOAK_MAX_MS,
        requests: SOAK_REQUESTS,
      }).finally(() => clearInterval(sampler));
      const after = gateway.rssMiB();
      const seconds = (performance.now() - started) / 1000;
      samples.push([seconds, after]);
      const peak = Math.max(...samples.map(([, mib]) => mib));
      const results: Measurement[] = [
        {
          what: 'API role resident memory, idle after start (every chain configured)',
          unit: 'MiB',
          measured: idle,
          baseline,
          goal: { on: 'value', op: '<', value: 150 },
        },
        {
          what: `API role resident memory, after ${SOAK_REQUESTS.toLocaleString('en-US')} requests`,
          unit: 'MiB',
          measured: after,
          baseline,
          goal: { on: 'value', op: '<', value: 200 },
          note: `GET ${SOAK_READ} authenticated, ${Math.round(soak.perSecond).toLocaleString('en-US')} req/s over ${Math.round(seconds)} s, peak ${peak.toFixed(0)} MiB, p99 ${soak.p99Ms.toFixed(1)} ms`,
          plot: {
            file: 'api-memory-soak.svg',
            title: `API role resident memory over ${SOAK_REQUESTS.toLocaleString('en-US')} authenticated requests`,
            x: { label: 'seconds into the soak' },
            y: { label: 'resident memory (MiB)' },
            series: [{ name: 'API role RSS', points: samples }],
          },
        },
      ];
      return results;
    } finally {
      await gateway.stop();
    }
  },
};

/** Start-up allocations settle (lazy compilation, the first collections) before an idle figure. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 2_000));
}
