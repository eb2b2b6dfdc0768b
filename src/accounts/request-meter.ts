import type { Kysely } from 'kysely';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Database } from '../store/schema.ts';

/** One user's requests in one quota period, as this process sees them. */
interface Count {
  userId: string;
  periodStart: string;
  /** The database's count when last read or written; null until read. */
  stored: number | null;
  /** Taken (or given back, negative) here and not yet written. */
  unwritten: number;
  /** Being added to the database now: still counted until the write answers the new total. */
  writing: number;
  loading: Promise<void> | null;
  /** Takes waiting for the stored count: while any waits, a flush keeps the count. */
  waiting: number;
}

/** How often the counts taken in memory are written to the database: the most a crash can lose. */
export const METER_FLUSH_MS = 250;

/**
 * The requests quota, counted in memory and written in batches, so an authenticated request costs no
 * database write. Within one process the count is exact: a unit is taken synchronously against the stored
 * count plus what this process took since, so concurrent requests never overshoot. Every METER_FLUSH_MS
 * the units taken are added to the database in one statement per user, which answers the new total (with
 * other instances' units in it). Limits of this design, documented in the README: a crash loses at most
 * the last interval's units (never counted: in the user's favour); several instances each admit against
 * what they last read, so together they may overshoot a limit by what the others took within one interval.
 */
export class RequestMeter {
  /** By user, then by period start: looked up by the strings themselves, with no key made per request. */
  private readonly counts = new Map<string, Map<string, Count>>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly flushMs = METER_FLUSH_MS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Takes a unit when fewer than `limit` (null: unlimited) are used this period; false when spent. At once
   * when the stored count is known (every request but a user's first in a period here), else once read.
   */
  take(userId: string, periodStart: string, limit: number | null): MaybePromise<boolean> {
    const count = this.countOf(userId, periodStart);
    if (limit !== null && count.stored === null) return this.#takeOnceRead(count, limit);
    return this.#takeNow(count, limit);
  }

  async #takeOnceRead(count: Count, limit: number): Promise<boolean> {
    count.loading ??= this.load(count);
    count.waiting++;
    try {
      await count.loading;
    } finally {
      count.waiting--;
    }
    return this.#takeNow(count, limit);
  }

  #takeNow(count: Count, limit: number | null): boolean {
    if (limit !== null && (count.stored ?? 0) + count.writing + count.unwritten >= limit) return false;
    count.unwritten++;
    this.schedule();
    return true;
  }

  giveBack(userId: string, periodStart: string): void {
    this.countOf(userId, periodStart).unwritten--;
    this.schedule();
  }

  /**
   * The period's units as the quota is checked against them (the stored count, as last read or written,
   * with this process's since), or null when this process holds no stored count for them.
   */
  counted(userId: string, periodStart: string): number | null {
    const count = this.counts.get(userId)?.get(periodStart);
    if (count === undefined || count.stored === null) return null;
    return count.stored + count.writing + count.unwritten;
  }

  /** Units this process took (net) that the database does not hold yet. */
  unwritten(userId: string, periodStart: string): number {
    const count = this.counts.get(userId)?.get(periodStart);
    return count === undefined ? 0 : count.unwritten + count.writing;
  }

  /** Writes what is pending now (the gateway calls it when it stops). */
  async flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    // After a failed write too: its units are kept for this one, which must run.
    this.flushing = this.flushing.catch(() => undefined).then(() => this.write());
    await this.flushing;
  }

  /**
   * Runs `read` with no write in flight, so what it reads from the database and `unwritten` add up
   * exactly (a write that committed but has not yet moved its units out of `writing` would count twice).
   */
  async withoutWrites<T>(read: () => Promise<T>): Promise<T> {
    const run = this.flushing.catch(() => undefined).then(read);
    this.flushing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private countOf(userId: string, periodStart: string): Count {
    let periods = this.counts.get(userId);
    if (periods === undefined) {
      periods = new Map();
      this.counts.set(userId, periods);
    }
    let count = periods.get(periodStart);
    if (count === undefined) {
      count = { userId, periodStart, stored: null, unwritten: 0, writing: 0, loading: null, waiting: 0 };
      periods.set(periodStart, count);
    }
    return count;
  }

  private async load(count: Count): Promise<void> {
    try {
      const row = await this.db
        .selectFrom('quota_usage')
        .select('requests')
        .where('user_id', '=', count.userId)
        .where('period_start', '=', count.periodStart)
        .executeTakeFirst();
      count.stored = row?.requests ?? 0;
    } finally {
      count.loading = null;
    }
  }

  private schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => void this.flush().catch(() => {}), this.flushMs);
    this.timer.unref();
  }

  *#allCounts(): Generator<Count> {
    for (const periods of this.counts.values()) yield* periods.values();
  }

  #forget({ userId, periodStart }: Count): void {
    const periods = this.counts.get(userId);
    periods?.delete(periodStart);
    if (periods?.size === 0) this.counts.delete(userId);
  }

  /**
   * Adds each count's pending units in one statement per user and keeps the total it answers. A count with
   * nothing pending is dropped, so the next request reads the database afresh (other instances' units).
   */
  private async write(): Promise<void> {
    let failed: unknown = null;
    for (const count of this.#allCounts()) {
      const delta = count.unwritten;
      if (delta === 0) {
        if (count.waiting === 0) this.#forget(count);
        continue;
      }
      count.unwritten -= delta;
      count.writing = delta;
      try {
        // The day's count moves with the period's, in one transaction: the chart never disagrees with the
        // quota. Units given back after a write may land on the next interval's day (a unit at most).
        const day = this.now().toISOString().slice(0, 10);
        const row = await this.db.transaction().execute(async (trx) => {
          const period = await trx
            .insertInto('quota_usage')
            .values({ user_id: count.userId, period_start: count.periodStart, requests: Math.max(0, delta) })
            .onConflict((oc) =>
              oc.columns(['user_id', 'period_start']).doUpdateSet((eb) => {
                const total = eb('quota_usage.requests', '+', delta);
                // A unit given back after its period's count was written never takes the count below 0.
                return { requests: eb.case().when(total, '<', 0).then(0).else(total).end() };
              }),
            )
            .returning('requests')
            .executeTakeFirstOrThrow();
          await trx
            .insertInto('request_days')
            .values({ user_id: count.userId, day, requests: Math.max(0, delta) })
            .onConflict((oc) =>
              oc.columns(['user_id', 'day']).doUpdateSet((eb) => {
                const total = eb('request_days.requests', '+', delta);
                return { requests: eb.case().when(total, '<', 0).then(0).else(total).end() };
              }),
            )
            .execute();
          return period;
        });
        count.stored = row.requests;
      } catch (error) {
        // Kept for the next interval: a database hiccup delays the count, it does not lose it; the other
        // users' counts are still written.
        count.unwritten += delta;
        failed ??= error;
      } finally {
        count.writing = 0;
      }
    }
    if (failed !== null) throw failed;
  }
}
