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
