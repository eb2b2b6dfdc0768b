import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { apiMemory } from './api-memory.ts';
import { authenticatedRead } from './authenticated-read.ts';
import { deliveryThroughput } from './delivery-throughput.ts';
import { docsPage } from './docs-page.ts';
import { eventLoopSends } from './event-loop-sends.ts';
import { jsonBody } from './json-body.ts';
import { matcherAtScale } from './matcher.ts';
import { matcherStart } from './matcher-start.ts';
import { startTimes } from './start-times.ts';
import { lineChart } from './svg-plot.ts';
import { tronPacing } from './tron-pacing.ts';
import { type Benchmark, goalMet, type Measurement } from './types.ts';
import { webhookLatency } from './webhook-latency.ts';

const BENCHMARKS: Benchmark[] = [
  authenticatedRead,
  apiMemory,
  startTimes,
  webhookLatency,
  tronPacing,
  matcherAtScale,
  matcherStart,
  deliveryThroughput,
  eventLoopSends,
  jsonBody,
  docsPage,
];

const fmt = (n: number) =>
  Math.abs(n) >= 100
    ? Math.round(n).toLocaleString('en-US')
    : n.toLocaleString('en-US', { maximumFractionDigits: 2 });

function goalText(m: Measurement): string {
  if (m.goal === undefined) return '';
  const target =
    m.goal.on === 'ratio'
      ? `ratio ${m.goal.op} ${m.goal.value}`
      : `${m.goal.op} ${fmt(m.goal.value)} ${m.unit}`;
  return `${target}: ${goalMet(m) ? 'met' : 'MISSED'}`;
}

function line(m: Measurement): string {
  const ratio = m.baseline ? `, ratio ${(m.measured / m.baseline.value).toFixed(3)}` : '';
  const baseline = m.baseline ? `; baseline (${m.baseline.what}) ${fmt(m.baseline.value)} ${m.unit}` : '';
  const goal = m.goal ? ` [goal ${goalText(m)}]` : '';
  return `  ${m.what}: ${fmt(m.measured)} ${m.unit}${baseline}${ratio}${goal}${m.note ? `\n    ${m.note}` : ''}`;
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const REPORT = 'docs/benchmarks.md';

/** The figures between the report's markers; the analysis around them is written by hand. */
function markdown(results: { bench: Benchmark; measurements: Measurement[] }[]): string {
  const rows = results.flatMap(({ measurements }) =>
    measurements.map((m) => {
      const ratio = m.baseline ? (m.measured / m.baseline.value).toFixed(3) : '';
      const baseline = m.baseline ? `${fmt(m.baseline.value)} ${m.unit} (${m.baseline.what})` : '';
      const note = m.note ? ` (${m.note})` : '';
      return `| ${m.what} | ${fmt(m.measured)} ${m.unit}${note} | ${baseline} | ${ratio} | ${goalText(m)} |`;
    }),
  );
  const plots = results.flatMap(({ measurements }) =>
    measurements.flatMap((m) => (m.plot ? ['', `![${m.plot.title}](images/${m.plot.file})`] : [])),
  );
  return [
    START,
    `Measured by \`npm run bench -- --write\` on ${new Date().toISOString().slice(0, 10)}, on ${machine()}.`,
    '',
    '| measured | value | baseline (same run) | ratio | goal |',
    '|---|---|---|---|---|',
    ...rows,
    ...plots,
    END,
  ].join('\n');
}

/** `npm run bench [name filter] [--write]`: each figure printed with its baseline and goal. */
const args = process.argv.slice(2);
const write = args.includes('--write');
const filter = args.find((arg) => !arg.startsWith('--'));
const results: { bench: Benchmark; measurements: Measurement[] }[] = [];
for (const bench of BENCHMARKS) {
  if (filter !== undefined && !bench.name.includes(filter)) continue;
  const measurements = await bench.run();
  results.push({ bench, measurements });
  process.stdout.write(`${bench.name}\n${measurements.map(line).join('\n')}\n`);
}
if (write) {
  const report = readFileSync(REPORT, 'utf8');
  const start = report.indexOf(START);
  const end = report.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${REPORT} has no ${START} ... ${END} section`);
  writeFileSync(REPORT, report.slice(0, start) + markdown(results) + report.slice(end + END.length));
  for (const { measurements } of results) {
    for (const { plot } of measurements) if (plot) writeFileSync(`docs/images/${plot.file}`, lineChart(plot));
  }
  process.stdout.write(`wrote the figures into ${REPORT}\n`);
}
