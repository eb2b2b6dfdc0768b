/**
 * The opt-in `backoff` retry policy. Chaingateway itself never resends a refused notification (the
 * default policy, `none`); a webhook that opts in gets Standard Webhooks' example schedule instead.
 */

/** Delay before each attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.5 h). */
export const BACKOFF_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export const BACKOFF_MAX_ATTEMPTS = BACKOFF_SCHEDULE_MS.length;

const MAX_DELAY_MS = Math.max(...BACKOFF_SCHEDULE_MS);

/** +-10%: spreads the retries of many notifications that failed together (an endpoint outage). */
const JITTER = 0.1;

/**
 * Milliseconds until the next attempt after `attemptsMade` attempts have failed, or null when the
 * schedule is used up (the notification is then failed). A longer `Retry-After` wins, up to the
 * schedule's longest delay, so a receiver cannot park a notification for ever.
 */
export function nextBackoffDelayMs(
  attemptsMade: number,
  retryAfter: string | null | undefined,
  now: Date,
  random: () => number = Math.random,
): number | null {
  if (attemptsMade >= BACKOFF_MAX_ATTEMPTS) return null;
  const scheduled = BACKOFF_SCHEDULE_MS[Math.max(attemptsMade, 0)]!;
  const jittered = Math.round(scheduled * (1 - JITTER + 2 * JITTER * random()));
  const asked = parseRetryAfter(retryAfter, now);
  return asked === null || asked <= jittered ? jittered : Math.min(asked, MAX_DELAY_MS);
}

/** `Retry-After` as milliseconds from `now`: delta seconds or an HTTP date; null when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  const text = value?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names a weekday or month; V8 would read stray text like "1.5" as a date.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}
