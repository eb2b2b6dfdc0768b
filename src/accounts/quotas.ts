import type { Kysely } from 'kysely';
import type { PlanConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import { PreparedQuery } from '../store/prepared-query.ts';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';
import { currentPeriod, nextPeriodStart, periodStart } from './periods.ts';
import { planFromRow } from './plans.ts';
import { readRequestDays } from './request-days.ts';
import { METER_FLUSH_MS, RequestMeter } from './request-meter.ts';

/** Resources consumed per period. */
export type MeteredResource = 'requests' | 'transactions';
/** Resources counted while they exist (deleting one frees quota). */
export type HeldResource = 'addresses' | 'webhooks';

/** Counts a user's live rows of a held resource; registered by the module that owns the table. */
export type HeldCounter = (db: Kysely<Database>, userId: string) => Promise<number>;

/** What is left of each quota (null: unlimited), and when the period's counts start again. */
export interface QuotasLeft {
  quotas: Record<MeteredResource | HeldResource, number | null>;
  /** When the period's counts start again (ISO). */
  resetsAt: string;
}

export interface Reservation {
  userId: string;
  kind: MeteredResource;
  periodStart: string;
}

const EXHAUSTED: Record<MeteredResource | HeldResource, string> = {
  requests: 'Your request limit exceeded. Please upgrade your plan',
  transactions: 'Your transaction limit exceeded. Please upgrade your plan',
  addresses: 'Your address limit exceeded. Please upgrade your plan',
  webhooks: 'Your webhook limit exceeded. Please upgrade your plan',
};

/**
 * Plan quotas. Metered resources are reserved before the work and released if it fails, so concurrent
 * requests can never overshoot a limit (requests through the in-memory RequestMeter, transactions in the
 * database); held resources are counted from their own tables.
 */
export class QuotaService {
  private readonly counters = new Map<HeldResource, HeldCounter>();
  /** Requests are counted in memory and written in batches: no database write per request. */
  readonly requests: RequestMeter;
  /** What `GET /api/account` reads on every call: compiled once. */
  readonly #usage: PreparedQuery<{ requests: number; transactions: number }>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.requests = new RequestMeter(db, METER_FLUSH_MS, now);
    this.#usage = new PreparedQuery(
      db
        .selectFrom('quota_usage')
        .select(['requests', 'transactions'])
        .where('user_id', '=', '')
        .where('period_start', '=', ''),
    );
  }

  registerCounter(resource: HeldResource, counter: HeldCounter): void {
    this.counters.set(resource, counter);
  }

  async planOf(userId: string, db: Kysely<Database> = this.db): Promise<PlanConfig> {
    const row = await db
      .selectFrom('subscriptions')
      .innerJoin('plans', 'plans.name', 'subscriptions.plan')
      .selectAll('plans')
      .where('subscriptions.user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return planFromRow(row);
  }

  /**
   * Takes one unit of `kind`, or throws the plan's limit error (429 with Retry-After for requests). A
   * request's unit is taken at once when the plan is given and its count is in memory.
   */
  reserve(userId: string, kind: MeteredResource, knownPlan?: PlanConfig): MaybePromise<Reservation> {
    if (knownPlan === undefined) return this.planOf(userId).then((plan) => this.reserve(userId, kind, plan));
    const plan = knownPlan;
    const now = this.now();
    const { start } = currentPeriod(plan.period, now);
    const limit = plan.quotas[kind];
    if (limit !== null && limit <= 0) throw this.exhausted(kind, plan, now);
    const reservation = { userId, kind, periodStart: start };
    if (kind === 'requests') {
      return thenOrNow(this.requests.take(userId, start, limit), (taken) => {
        if (!taken) throw this.exhausted(kind, plan, now);
        return reservation;
      });
    }
    return this.#reserveStored(reservation, limit, plan, now);
  }

  /** A unit of a resource counted in the database, taken by a conditional upsert. */
  async #reserveStored(
    reservation: Reservation,
    limit: number | null,
    plan: PlanConfig,
    now: Date,
  ): Promise<Reservation> {
    const { userId, kind, periodStart: start } = reservation;
    const taken = await this.db
      .insertInto('quota_usage')
      .values({ user_id: userId, period_start: start, [kind]: 1 })
      .onConflict((oc) => {
        const update = oc
          .columns(['user_id', 'period_start'])
          .doUpdateSet((eb) => ({ [kind]: eb(`quota_usage.${kind}`, '+', 1) }));
        return limit === null ? update : update.where(`quota_usage.${kind}`, '<', limit);
      })
      .executeTakeFirst();
    if (Number(taken.numInsertedOrUpdatedRows ?? 0n) === 0) throw this.exhausted(kind, plan, now);
    return reservation;
  }

  /** Gives back a reserved unit when the work it paid for did not succeed. */
  async release(reservation: Reservation): Promise<void> {
    const { userId, kind, periodStart: start } = reservation;
    if (kind === 'requests') return this.requests.giveBack(userId, start);
    await this.db
      .updateTable('quota_usage')
      .set((eb) => ({ [kind]: eb(kind, '-', 1) }))
      .where('user_id', '=', userId)
      .where('period_start', '=', start)
      .where(kind, '>', 0)
      .execute();
  }

  /** Runs `work` paid with one `transactions` unit, refunded if `work` throws. */
  async withTransactionQuota<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const reservation = await this.reserve(userId, 'transactions');
    try {
      return await work();
    } catch (error) {
      await this.release(reservation);
      throw error;
    }
  }

  /**
   * Throws the plan's limit error when one more `resource` would exceed it. Call it inside the database
   * transaction that inserts the new row so concurrent creations are serialized by the database.
   */
  async assertCapacity(
    userId: string,
    resource: HeldResource,
    db: Kysely<Database> = this.db,
  ): Promise<void> {
    // Postgres: lock the user's subscription row so concurrent creations count one after the other.
    // SQLite: transactions already run one at a time on the single connection.
    if (this.dialect === 'postgres') {
      await db
        .selectFrom('subscriptions')
        .select('user_id')
        .where('user_id', '=', userId)
        .forUpdate()
        .execute();
    }
    const plan = await this.planOf(userId, db);
    const limit = plan.quotas[resource];
    if (limit === null) return;
    if ((await this.countHeld(userId, resource, db)) >= limit)
      throw this.exhausted(resource, plan, this.now());
  }

  /**
   * What is left of each quota in the current period; null means unlimited (and is not counted).
   * `knownPlan`: the plan the request was authenticated with, saving its query. At once, without a
   * query, when the plan limits nothing but requests and the meter holds their count.
   */
  remaining(userId: string, knownPlan?: PlanConfig): MaybePromise<QuotasLeft> {
    if (knownPlan === undefined) return this.planOf(userId).then((plan) => this.remaining(userId, plan));
    const { quotas, period } = knownPlan;
    const { start, next } = currentPeriod(period, this.now());
    // Requests as the meter counts them for the quota (no query once it holds the stored count); the
    // transactions from the database, where the plan limits them.
    const counted = quotas.requests === null ? 0 : this.requests.counted(userId, start);
    const readsUsage = counted === null || quotas.transactions !== null;
    const left = (limit: number | null, used: number) => (limit === null ? null : Math.max(0, limit - used));
    const answer = (requests: number, transactions: number, held: Record<HeldResource, number | null>) => ({
      quotas: {
        requests: left(quotas.requests, requests),
        transactions: left(quotas.transactions, transactions),
        addresses: held.addresses,
        webhooks: held.webhooks,
      },
      resetsAt: next,
    });
    if (!readsUsage && quotas.addresses === null && quotas.webhooks === null) {
      return answer(counted ?? 0, 0, { addresses: null, webhooks: null });
    }
    const heldLeft = async (resource: HeldResource) => {
      const limit = quotas[resource];
      return limit === null ? null : left(limit, await this.countHeld(userId, resource));
    };
    return (async () => {
      const usage = readsUsage ? await this.#usage.first(this.db, [userId, start]) : undefined;
      // The units not yet written, read right after the usage they add to.
      const requests = counted ?? (usage?.requests ?? 0) + this.requests.unwritten(userId, start);
      const held = { addresses: await heldLeft('addresses'), webhooks: await heldLeft('webhooks') };
      return answer(requests, usage?.transactions ?? 0, held);
    })();
  }

  /**
   * Requests per UTC day over the last `days` (today included, oldest first, days without any as 0), with
   * the plan's request quota and the current period it counts, for the Account page's chart.
   */
  async requestUsage(userId: string, days: number) {
    const plan = await this.planOf(userId);
    const now = this.now();
    const start = periodStart(plan.period, now);
    // This process's units not written yet belong to today (the meter writes them within a quarter second).
    const counts = await this.requests.withoutWrites(async () => {
      const read = await readRequestDays(this.db, userId, days, now);
      const today = read.at(-1);
      if (today) today.requests += this.requests.unwritten(userId, start.toISOString());
      return read;
    });
    return {
      quota: plan.quotas.requests,
      period: plan.period,
      period_start: start.toISOString(),
      period_end: nextPeriodStart(plan.period, now).toISOString(),
      days: counts,
    };
  }

  private async countHeld(
    userId: string,
    resource: HeldResource,
    db: Kysely<Database> = this.db,
  ): Promise<number> {
    const counter = this.counters.get(resource);
    return counter ? counter(db, userId) : 0;
  }

  private exhausted(kind: MeteredResource | HeldResource, plan: PlanConfig, now: Date): ApiError {
    if (kind !== 'requests') return new ApiError(422, EXHAUSTED[kind]);
    const retryAfter = Math.max(
      1,
      Math.ceil((nextPeriodStart(plan.period, now).getTime() - now.getTime()) / 1000),
    );
    return new ApiError(429, EXHAUSTED.requests, [], { 'Retry-After': String(retryAfter) });
  }
}
