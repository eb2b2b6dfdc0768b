import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';

/** One hour of a user's deliveries: attempts by how they ended, and how long transfers took to arrive. */
export interface DeliveryHour {
  /** The hour's start, ISO (`2026-11-28T03:00:00.000Z`). */
  hour: string;
  /** Attempts the receiver answered 2xx (one per notification delivered). */
  delivered: number;
  /** Attempts that got no 2xx: another status, a timeout, a refused connection. */
  failed: number;
  /** Attempts that were not a notification's first (its backoff, or a Retry). */
  retried: number;
  /** From the transfer's block time to its delivery, over the `transfer` notifications delivered that hour. */
  latency_ms: { average: number | null; max: number | null };
}

const HOUR_MS = 3_600_000;

/** Milliseconds from a notification's block time to its delivery, in the dialect's date arithmetic. */
function latencyMs(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`extract(epoch from (delivered_at::timestamptz - block_time::timestamptz)) * 1000`
    : sql<number>`(julianday(delivered_at) - julianday(block_time)) * 86400000`;
}

/**
 * Delivery health of a user's webhooks on one network (one chain, or all), per hour over the last `hours`,
 * oldest first, the current hour last, hours without attempts as zeros. Grouped in the database by the
 * hour prefix of the ISO times, so the answer stays small however many notifications there were.
 */
export async function deliveryStats(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: { userId: string; network: Network; chain: string | null; hours: number; now: Date },
): Promise<DeliveryHour[]> {
  const currentHour = Math.floor(scope.now.getTime() / HOUR_MS) * HOUR_MS;
  const since = new Date(currentHour - (scope.hours - 1) * HOUR_MS).toISOString();
  let attempts = db
    .selectFrom('notification_attempts as a')
    .innerJoin('notifications as n', 'n.id', 'a.notification_id')
    .where('n.user_id', '=', scope.userId)
    .where('n.network', '=', scope.network)
    .where('a.attempted_at', '>=', since);
  if (scope.chain !== null) attempts = attempts.where('n.chain', '=', scope.chain);
  const ok = sql<boolean>`a.response_status >= 200 and a.response_status < 300`;
  const perHour = await attempts
    .select([
      sql<string>`substr(a.attempted_at, 1, 13)`.as('hour'),
      sql<number>`sum(case when ${ok} then 1 else 0 end)`.as('delivered'),
      sql<number>`sum(case when ${ok} then 0 else 1 end)`.as('failed'),
      sql<number>`sum(case when exists (select 1 from notification_attempts b where b.notification_id = a.notification_id and b.attempted_at < a.attempted_at) then 1 else 0 end)`.as(
        'retried',
      ),
    ])
    .groupBy(sql`substr(a.attempted_at, 1, 13)`)
    .execute();

  let delivered = db
    .selectFrom('notifications')
    .where('user_id', '=', scope.userId)
    .where('network', '=', scope.network)
    .where('status', '=', 'delivered')
    .where('event', '=', 'transfer')
    .where('delivered_at', '>=', since);
  if (scope.chain !== null) delivered = delivered.where('chain', '=', scope.chain);
  const latency = latencyMs(dialect);
  const latencies = await delivered
    .select([
      sql<string>`substr(delivered_at, 1, 13)`.as('hour'),
      sql<number>`avg(${latency})`.as('average'),
      sql<number>`max(${latency})`.as('max'),
    ])
    .groupBy(sql`substr(delivered_at, 1, 13)`)
    .execute();

  const counts = new Map(perHour.map((row) => [row.hour, row]));
  const times = new Map(latencies.map((row) => [row.hour, row]));
  // Numbers from either driver (Postgres sums are bigint text); a latency below 0 is clock skew, shown as 0.
  const count = (value: unknown) => Number(value ?? 0);
  const ms = (value: unknown) =>
    value === null || value === undefined ? null : Math.max(0, Math.round(Number(value)));
  return Array.from({ length: scope.hours }, (_, i) => {
    const start = new Date(currentHour - (scope.hours - 1 - i) * HOUR_MS).toISOString();
    const key = start.slice(0, 13);
    const row = counts.get(key);
    const time = times.get(key);
    return {
      hour: start,
      delivered: count(row?.delivered),
      failed: count(row?.failed),
      retried: count(row?.retried),
      latency_ms: { average: ms(time?.average), max: ms(time?.max) },
    };
  });
}
