import { ConfigError } from './error.ts';
import { MAX_RATE_REQUESTS, MAX_RATE_SECONDS, type PlanRate } from './plans.ts';

/**
 * A rate written `requests/seconds`, e.g. `10/60`: a burst of 10 at once, then one more every 6 seconds
 * (the GCRA of `accounts/rate-gcra.ts`, as a plan's rate).
 */
export function rateSetting(raw: string, name: string): PlanRate {
  const match = /^(\d{1,7})\/(\d{1,6})$/.exec(raw.trim());
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (
    match === null ||
    requests < 1 ||
    requests > MAX_RATE_REQUESTS ||
    seconds < 1 ||
    seconds > MAX_RATE_SECONDS
  ) {
    throw new ConfigError(
      name,
      `must be requests/seconds, e.g. 10/60 (requests 1..${MAX_RATE_REQUESTS}, seconds 1..${MAX_RATE_SECONDS})`,
    );
  }
  return { requests, seconds };
}
