import type { PlanRate } from '../config.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import { gcraStep, type RateDecision } from './rate-gcra.ts';

export type { RateDecision } from './rate-gcra.ts';

/** Takes one request from a key's budget at a plan's rate: in this process, or shared through Redis. */
export interface RateLimiter {
  /** The decision at once where it is made in this process; a promise where it is asked of Redis. */
  take(key: string, rate: PlanRate): MaybePromise<RateDecision>;
  /** Whether budgets are counted where they should be (false: Redis is out of reach, counted here). */
  ready(): boolean;
  close(): Promise<void>;
}

/** Microseconds since the epoch, from a clock that never steps back within this process. */
export function processClockUs(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** How many takes between sweeps of keys whose budget is full again (they mean the same as no entry). */
const SWEEP_EVERY = 10_000;

/** The limiter of a single instance: one TAT per key in a Map, swept as it grows. */
export class LocalRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  private takes = 0;

  constructor(private readonly nowUs: () => number = processClockUs) {}

  take(key: string, rate: PlanRate): RateDecision {
    const now = this.nowUs();
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const { decision, tatUs } = gcraStep(this.tats.get(key) ?? null, now, rate);
    this.tats.set(key, tatUs);
    return decision;
  }

  ready(): boolean {
    return true;
  }

  /** Keys tracked (tests: the sweep forgets idle ones). */
  get size(): number {
    return this.tats.size;
  }

  async close(): Promise<void> {
    this.tats.clear();
  }

  private sweep(now: number): void {
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }
}
