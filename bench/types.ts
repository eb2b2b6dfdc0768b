import type { Plot } from './svg-plot.ts';

/** What a goal compares: the ratio to the baseline measured in the same run, or the measured value itself. */
export interface Goal {
  on: 'ratio' | 'value';
  op: '>=' | '<=' | '<';
  value: number;
}

/** One figure a benchmark measured, with the baseline it is read against. */
export interface Measurement {
  what: string;
  unit: string;
  measured: number;
  baseline?: { what: string; value: number };
  goal?: Goal;
  /** What else the run showed (percentiles, counts), printed under the figure. */
  note?: string;
  /** The curve behind the figure, drawn into docs/images by `--write` and shown under the table. */
  plot?: Plot;
}

/** A benchmark measures one thing against a baseline run in the same process or beside it. */
export interface Benchmark {
  name: string;
  run(): Promise<Measurement[]>;
}

export function goalMet(m: Measurement): boolean | null {
  if (m.goal === undefined) return null;
  const subject = m.goal.on === 'ratio' ? m.measured / (m.baseline?.value ?? Number.NaN) : m.measured;
  if (m.goal.op === '>=') return subject >= m.goal.value;
  if (m.goal.op === '<=') return subject <= m.goal.value;
  return subject < m.goal.value;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
