import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

export interface RequestDay {
  /** The UTC date, `2026-11-28`. */
  day: string;
  requests: number;
}

const DAY_MS = 86_400_000;

/** The last `days` UTC days up to `now`'s, oldest first, each with its stored count (0 for a day without). */
export async function readRequestDays(
  db: Kysely<Database>,
  userId: string,
  days: number,
  now: Date,
): Promise<RequestDay[]> {
  const dates = Array.from({ length: days }, (_, i) =>
    new Date(now.getTime() - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const rows = await db
    .selectFrom('request_days')
    .select(['day', 'requests'])
    .where('user_id', '=', userId)
    .where('day', '>=', dates[0] ?? '')
    .execute();
  const stored = new Map(rows.map((row) => [row.day, Number(row.requests)]));
  return dates.map((day) => ({ day, requests: stored.get(day) ?? 0 }));
}
