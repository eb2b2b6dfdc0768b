import type { PlanRate } from '../config.ts';

/**
 * The Generic Cell Rate Algorithm: a limiter keeps one number per key, the theoretical arrival time (TAT)
 * of the next request at the steady pace. Each request moves it one interval (`seconds/requests`) later;
 * a request is refused when that would put it more than `requests` intervals ahead of now. So a fresh key
 * allows a burst of `requests` at once, then one more every interval: `requests` per `seconds` on average,
 * and a client that pauses gets its burst back, one interval at a time. Times are whole microseconds, exact in a double (and in Redis's Lua, which runs the same
 * steps: `redis-rate-limiter.ts`); the interval is rounded up, so the pace is never faster than the plan's.
 */
export interface RateDecision {
  allowed: boolean;
  /** The plan's `requests` (RateLimit-Limit). */
  limit: number;
  /** Requests still allowed right now (RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until the full budget is back (RateLimit-Reset). */
  resetSeconds: number;
  /** Whole seconds until a refused request would be allowed (Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
}

export interface GcraStep {
  decision: RateDecision;
  /** The TAT to keep (µs); unchanged when the request is refused. */
  tatUs: number;
}

/** The steady interval between two requests, in whole microseconds. */
export function intervalUs(rate: PlanRate): number {
  return Math.ceil((rate.seconds * 1_000_000) / rate.requests);
}

/** One request at `nowUs` against the stored TAT (null: a key never seen, or expired). */
export function gcraStep(storedTatUs: number | null, nowUs: number, rate: PlanRate): GcraStep {
  const interval = intervalUs(rate);
  const tat = Math.max(storedTatUs ?? nowUs, nowUs);
  const nextTat = tat + interval;
  const allowAt = nextTat - rate.requests * interval;
  if (nowUs < allowAt) {
    return { tatUs: tat, decision: refused(rate, tat - nowUs, allowAt - nowUs) };
  }
  return {
    tatUs: nextTat,
    decision: allowed(rate, Math.floor((nowUs - allowAt) / interval), nextTat - nowUs),
  };
}

/** An allowed request's decision, from the remaining count and how long until the budget is full (µs). */
export function allowed(rate: PlanRate, remaining: number, untilFullUs: number): RateDecision {
  return {
    allowed: true,
    limit: rate.requests,
    remaining,
    resetSeconds: wholeSeconds(untilFullUs),
    retryAfterSeconds: 0,
  };
}

/** A refused request's decision, from how long until the budget is full and until one request fits (µs). */
export function refused(rate: PlanRate, untilFullUs: number, untilAllowedUs: number): RateDecision {
  return {
    allowed: false,
    limit: rate.requests,
    remaining: 0,
    resetSeconds: wholeSeconds(untilFullUs),
    retryAfterSeconds: Math.max(1, wholeSeconds(untilAllowedUs)),
  };
}

/** Microseconds rounded up to whole seconds: a client told "retry in 1" must not be refused at 1. */
function wholeSeconds(us: number): number {
  return Math.max(0, Math.ceil(us / 1_000_000));
}
