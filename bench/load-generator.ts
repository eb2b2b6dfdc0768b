/**
 * A load generator in its own process, so the server under test has the cores to itself as far as two
 * processes allow: `node --import tsx bench/load-generator.ts <url> <ms> <concurrency>` (headers as JSON in
 * LOAD_HEADERS; LOAD_REQUESTS stops the measured run after that many requests, before its time is up)
 * prints `{"perSecond", "failed", "p50Ms", "p99Ms"}` for GET requests with keep-alive.
 */
import { Pool } from 'undici';

const [url, durationText = '3000', concurrencyText = '32'] = process.argv.slice(2);
if (url === undefined) throw new Error('usage: load-generator <url> [durationMs] [concurrency]');
const target = new URL(url);
const concurrency = Number(concurrencyText);
const headers = JSON.parse(process.env['LOAD_HEADERS'] || '{}') as Record<string, string>;
const requestLimit = Number(process.env['LOAD_REQUESTS'] || Number.POSITIVE_INFINITY);
const pool = new Pool(target.origin, { connections: concurrency });
const path = target.pathname + target.search;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(durationMs: number, limit = Number.POSITIVE_INFINITY) {
  const deadline = Date.now() + durationMs;
  const latencies: number[] = [];
  const refused = new Map<number, number>();
  let begun = 0;
  const worker = async () => {
    while (Date.now() < deadline && begun++ < limit) {
      const sent = performance.now();
      const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
      await body.dump();
      if (statusCode === 200) latencies.push(performance.now() - sent);
      else refused.set(statusCode, (refused.get(statusCode) ?? 0) + 1);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    failed: [...refused.values()].reduce((sum, n) => sum + n, 0),
    /** Statuses other than 200, with their counts. */
    refused: Object.fromEntries(refused),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

await run(500); // warm-up: connections, JIT
process.stdout.write(`${JSON.stringify(await run(Number(durationText), requestLimit))}\n`);
await pool.close();
