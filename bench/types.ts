/** A benchmark measures one thing against a baseline run in the same process. */
export interface Benchmark {
  name: string;
  run(): Promise<{ unit: string; baseline: number; measured: number }>;
}
