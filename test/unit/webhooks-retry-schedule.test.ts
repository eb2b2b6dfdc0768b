import { describe, expect, it } from 'vitest';
import {
  BACKOFF_MAX_ATTEMPTS,
  BACKOFF_SCHEDULE_MS,
  nextBackoffDelayMs,
  parseRetryAfter,
} from '../../src/webhooks/retry-schedule.ts';

const now = new Date('2025-01-01T00:00:00Z');
const middle = () => 0.5;

describe('backoff retry schedule', () => {
  it('follows the Standard Webhooks example: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempts) => nextBackoffDelayMs(attempts, null, now, middle));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(BACKOFF_MAX_ATTEMPTS).toBe(8);
    expect(BACKOFF_SCHEDULE_MS[0]).toBe(0);
    expect(nextBackoffDelayMs(8, null, now, middle)).toBeNull();
    expect(nextBackoffDelayMs(9, '10', now, middle)).toBeNull();
  });

  it('jitters by at most 10%', () => {
    expect(nextBackoffDelayMs(2, null, now, () => 0)).toBe(270_000);
    expect(nextBackoffDelayMs(2, null, now, () => 1)).toBe(330_000);
    const samples = Array.from({ length: 200 }, () => nextBackoffDelayMs(1, null, now)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(4_500);
    expect(Math.max(...samples)).toBeLessThanOrEqual(5_500);
    expect(new Set(samples).size).toBeGreaterThan(1);
  });

  it('honours a longer Retry-After (seconds or HTTP date), capped at the longest delay', () => {
    expect(nextBackoffDelayMs(1, '120', now, middle)).toBe(120_000);
    expect(nextBackoffDelayMs(1, '2', now, middle)).toBe(5_000);
    expect(nextBackoffDelayMs(1, 'Wed, 01 Jan 2025 00:10:00 GMT', now, middle)).toBe(600_000);
    expect(nextBackoffDelayMs(1, String(7 * 24 * 3600), now, middle)).toBe(36_000_000);
    expect(nextBackoffDelayMs(1, 'soon', now, middle)).toBe(5_000);
  });

  it('parses Retry-After forms', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
