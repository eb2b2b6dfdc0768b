import type { QuotaPeriod } from '../config.ts';

/** Quota periods are calendar periods in UTC: they start at midnight, the 1st of a month, or 1 January. */
export function periodStart(period: QuotaPeriod, now: Date): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  if (period === 'day') return new Date(Date.UTC(y, m, now.getUTCDate()));
  if (period === 'month') return new Date(Date.UTC(y, m, 1));
  return new Date(Date.UTC(y, 0, 1));
}

export function nextPeriodStart(period: QuotaPeriod, now: Date): Date {
  const start = periodStart(period, now);
  if (period === 'day') return new Date(start.getTime() + 86_400_000);
  if (period === 'month') return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return new Date(Date.UTC(start.getUTCFullYear() + 1, 0, 1));
}

/** The quota period an instant falls in: its start, as the counts are keyed, and when the next one starts. */
export interface CurrentPeriod {
  /** The start, ISO: the key of the period's counts. */
  start: string;
  /** When the next period starts, ISO: when the counts reset. */
  next: string;
  startMs: number;
  nextMs: number;
}

/** The last period worked out of each kind: every authenticated request asks for its own. */
const lastPeriods = new Map<QuotaPeriod, CurrentPeriod>();

/** The `period` that `now` falls in, worked out once per period rather than per request. */
export function currentPeriod(period: QuotaPeriod, now: Date): CurrentPeriod {
  const ms = now.getTime();
  const last = lastPeriods.get(period);
  if (last !== undefined && last.startMs <= ms && ms < last.nextMs) return last;
  const start = periodStart(period, now);
  const next = nextPeriodStart(period, now);
  const current = {
    start: start.toISOString(),
    next: next.toISOString(),
    startMs: start.getTime(),
    nextMs: next.getTime(),
  };
  lastPeriods.set(period, current);
  return current;
}
