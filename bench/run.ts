import { httpOverhead } from './http-overhead.ts';
import { jsonBody } from './json-body.ts';
import { matcherAtScale } from './matcher.ts';
import { requestLogging } from './request-logging.ts';
import type { Benchmark } from './types.ts';
import { webhookLatency } from './webhook-latency.ts';

const BENCHMARKS: Benchmark[] = [jsonBody, httpOverhead, requestLogging, matcherAtScale, webhookLatency];

/** `npm run bench [name filter]`: each result printed with its baseline and the ratio between them. */
const filter = process.argv[2];
for (const bench of BENCHMARKS) {
  if (filter !== undefined && !bench.name.includes(filter)) continue;
  const { unit, baseline, measured } = await bench.run();
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  process.stdout.write(
    `${bench.name}\n  measured ${fmt(measured)} ${unit}, baseline ${fmt(baseline)} ${unit}, ratio ${(measured / baseline).toFixed(3)}\n`,
  );
}
