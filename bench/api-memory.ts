import { load, startGatewayProcess, startServerProcess } from './processes.ts';
import type { Benchmark, Measurement } from './types.ts';

/** The authenticated read the soak repeats: the whole per-request path, the answer held in memory. */
const SOAK_READ = '/api/v2/prices/ETH';
const SOAK_REQUESTS = 1_000_000;
/** Long enough for a million requests on a slow machine; the request count ends the run first. */
const SOAK_MAX_MS = 30 * 60_000;

/**
 * The API role's resident memory: idle after start (left alone until V8 has settled it, see idleMemory),
 * and through a soak of a million authenticated reads from the load generator in its own process, sampled
 * every second from /proc. The gateway is compiled
 * and runs the API role alone with every chain configured (each family's public endpoints), as
 * `npm start` would; a family's chain library loads only when a chain of it is first used, which no read
 * here does. Baseline: a bare Fastify server's process, idle, in the same run.
 */
export const apiMemory: Benchmark = {
  name: 'memory: API role resident memory, idle and over a 1,000,000-request soak',
  async run() {
    const bare = await startServerProcess<{ url: string }>('bench/serve-bare.ts');
    const baseline = {
      what: 'bare Fastify server process (through tsx), idle, settled',
      value: (await idleMemory(bare)).idle,
    };
    await bare.stop();
    const gateway = await startGatewayProcess({ PRICE_PROVIDERS: 'local' });
    try {
      await settle();
      const afterStart = gateway.rssMiB();
      const { idle, idleAfterSeconds } = await idleMemory(gateway);
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
          what: 'API role resident memory, idle after start (every chain configured, settled)',
          unit: 'MiB',
          measured: idle,
          baseline,
          goal: { on: 'value', op: '<', value: 150 },
          note: `${afterStart.toFixed(0)} MiB 2 s after start (the young generation as start-up grew it); ${idle.toFixed(0)} MiB from ${idleAfterSeconds} s idle on, once V8's memory reducer has run`,
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

/** How long an idle process is watched for its memory to settle. */
const IDLE_WATCH_SECONDS = 40;

/**
 * The resident memory of a process left idle: sampled every second for IDLE_WATCH_SECONDS, the last
 * sample, and from which second on it held. V8 keeps the young generation at the size start-up grew it to
 * until its memory reducer runs, some seconds into idleness (about 16 s here); nothing in an idle API role
 * allocates it back.
 */
async function idleMemory(process: {
  rssMiB(): number;
}): Promise<{ idle: number; idleAfterSeconds: number }> {
  const samples: number[] = [];
  for (let second = 0; second < IDLE_WATCH_SECONDS; second++) {
    samples.push(process.rssMiB());
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const idle = process.rssMiB();
  // The first second from which every sample stays within 1 MiB of the last.
  let from = samples.length;
  while (from > 0 && Math.abs((samples[from - 1] ?? idle) - idle) <= 1) from--;
  return { idle, idleAfterSeconds: from + 2 };
}
