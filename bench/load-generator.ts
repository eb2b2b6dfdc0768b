/**
 * A load generator in its own process, so the gateway under test has the cores to itself as far as two
 * processes allow: `node --import tsx bench/load-generator.ts <url> <ms> <concurrency>` prints
 * `{"perSecond": n, "failed": n}` for GET requests with keep-alive.
 */
import { Pool } from 'undici';

const [url, durationText = '3000', concurrencyText = '32'] = process.argv.slice(2);
if (url === undefined) throw new Error('usage: load-generator <url> [durationMs] [concurrency]');
const target = new URL(url);
const concurrency = Number(concurrencyText);
const pool = new Pool(target.origin, { connections: concurrency });
const path = target.pathname + target.search;

async function run(durationMs: number): Promise<{ perSecond: number; failed: number }> {
  const deadline = Date.now() + durationMs;
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const { statusCode, body } = await pool.request({ method: 'GET', path });
      await body.dump();
      if (statusCode === 200) done++;
      else failed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { perSecond: done / ((performance.now() - started) / 1000), failed };
}

await run(500); // warm-up: connections, JIT
process.stdout.write(`${JSON.stringify(await run(Number(durationText)))}\n`);
await pool.close();
