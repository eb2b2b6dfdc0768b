import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import { graceCutoff, lapsedUsersAt } from '../accounts/lifecycle.ts';
import type { Database, NotificationsTable, WebhooksTable } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { timeOrderedId } from '../store/time-ordered-id.ts';
import { recordStatements } from './attempt-statements.ts';
import type { AttemptResult, Verdict } from './delivery-attempt.ts';
import type { WebhookRoom } from './origin-slots.ts';
import { bumpWatchVersion } from './watch-versions.ts';

/**
 * How many of the oldest due rows one claim ranks: room for a couple of webhooks' full share, so one with
 * little room does not hide the others behind it, and no more, as the ranking's cost grows with them (a
 * webhook whose origin fills up is left out of the next claim, which then reaches the rows behind it).
 */
export function claimCandidates(limit: number, room: WebhookRoom): number {
  return 2 * Math.min(limit, Math.max(room.otherwise, ...room.byWebhook.values()));
}

/** The columns of a claimed notification that sending and recording it read. */
const CLAIMED_COLUMNS = [
  'id',
  'webhook_id',
  'payload',
  'txid',
  'attempts',
  'next_attempt_at',
  'claim_expires_at',
  'block_time',
] as const;

/** A claimed notification: what sending and recording it need (the claim returns no more). */
export type ClaimedNotification = Pick<NotificationsTable, (typeof CLAIMED_COLUMNS)[number]>;

/**
 * Stands for one of a claim's values in its statement, which is compiled once per shape (kysely builds a
 * statement anew on every use, which cost as much as running it) and bound to the values at each claim.
 * No stored value starts with a NUL.
 */
const SLOT = '\u0000claim:';
const slot = (name: string) => `${SLOT}${name}`;
/** Claim statements kept, one per shape (how many webhooks are left out or limited). */
const MAX_CLAIM_SHAPES = 100;

/** What makes two claims' statements differ; the values are bound per claim. */
interface ClaimShape {
  excluded: number;
  limited: number;
  oneRow: boolean;
}

/** One attempt to record: the claimed row, where it went, how it went and what becomes of it. */
export interface RecordedAttempt {
  row: ClaimedNotification;
  webhook: WebhooksTable;
  attempt: AttemptResult;
  verdict: Verdict;
}

export interface DeliveryQueueOptions {
  store: Store;
  /** Written into `claimed_by`; unique per running process. */
  instanceId: string;
  /** How long a claim lasts: a claimer that dies loses its rows when it lapses, and another takes them. */
  claimMs: number;
  /** Notifications of a user whose plan lapsed (past this grace) wait until it is renewed. */
  planGraceMs: number;
  now: () => Date;
}

/**
 * The outbox's notification rows as a work queue: claim the due ones (with an expiry), then settle each
 * (delivered, pending again at a later time, or failed) or hand it back. Every write checks that the
 * claim is still this instance's, so a row whose claim lapsed is never settled twice.
 */
export class DeliveryQueue {
  private readonly store: Store;
  private readonly instanceId: string;
  private readonly claimMs: number;
  private readonly planGraceMs: number;
  private readonly now: () => Date;
  private readonly claimStatements = new Map<string, CompiledQuery>();

  constructor(options: DeliveryQueueOptions) {
    this.store = options.store;
    this.instanceId = options.instanceId;
    this.claimMs = options.claimMs;
    this.planGraceMs = options.planGraceMs;
    this.now = options.now;
  }

  /**
   * Up to `limit` due rows, oldest first, and per webhook no more than `room` gives it (its origin's free
   * slots), so rows are not claimed only to be handed back.
   */
  claimDue(limit: number, room: WebhookRoom): Promise<ClaimedNotification[]> {
    if (this.store.dialect !== 'postgres') return this.claim(this.store.db, { limit, room });
    // Three round trips rather than four: the transaction's start and its planner setting go as one
    // message (no parameters: the simple protocol, which takes several statements).
    return this.store.db.connection().execute(async (connection) => {
      await connection.executeQuery(CompiledQuery.raw(`begin; ${INDEX_ORDER}`));
      try {
        const rows = await this.claim(connection, { limit, room });
        await connection.executeQuery(CompiledQuery.raw('commit'));
        return rows;
      } catch (error) {
        await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
        throw error;
      }
    });
  }

  /** One row now: pending whatever its next attempt time, or with a lapsed claim; else undefined. */
  async claimOne(notificationId: string): Promise<ClaimedNotification | undefined> {
    const [row] = await this.claim(this.store.db, {
      limit: 1,
      onlyId: notificationId,
      room: { otherwise: 1, byWebhook: new Map() },
    });
    return row;
  }

  /** Claimed rows go back to pending untouched (their origin had no room after all). */
  async release(ids: readonly string[]): Promise<void> {
    await this.store.db
      .updateTable('notifications')
      .set({ status: 'pending', claimed_by: null, claim_expires_at: null })
      .where('id', 'in', ids)
      .where('claimed_by', '=', this.instanceId)
      .where('status', '=', 'delivering')
      .execute();
  }

  async webhooks(ids: readonly string[]): Promise<Map<string, WebhooksTable>> {
    const rows = await this.store.db.selectFrom('webhooks').selectAll().where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * Attempts in one transaction: the attempt rows and each notification's new state; a verdict with a
   * disable reason (410) also disables the webhook. For each attempt, false when its claim had lapsed:
   * that row was left alone (its attempt is still recorded: the request was made).
   */
  async recordMany(attempts: readonly RecordedAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    if (this.store.dialect === 'postgres' && !attempts.some(disablesWebhook)) {
      // One statement (the attempts' insert rides in it) is its own transaction: one round trip, not three.
      const settled = await this.settle(this.store.db, attempts, false);
      return attempts.map(({ row }) => settled.has(row.id));
    }
    return this.store.db.transaction().execute((trx) => this.record(trx, attempts, false));
  }

  /**
   * recordMany and claimDue in one transaction: a deliverer that keeps one receiver busy writes once per
   * turn instead of twice. The claim comes last, so its row locks (Postgres) are held only to the commit.
   */
  async recordAndClaim(
    attempts: readonly RecordedAttempt[],
    limit: number,
    room: WebhookRoom,
  ): Promise<{ kept: boolean[]; claimed: ClaimedNotification[] }> {
    return this.store.db.transaction().execute(async (trx) => {
      const claiming = limit > 0;
      const kept = await this.record(trx, attempts, claiming);
      if (!claiming) return { kept, claimed: [] };
      // The record's statement turned bitmap scans off for the claim (see settle), unless it wrote nothing
      // or settled nothing (a join that yields no row need not run the setting).
      if (this.store.dialect === 'postgres' && !kept.includes(true)) await readDueRowsInIndexOrder(trx);
      return { kept, claimed: await this.claim(trx, { limit, room }) };
    });
  }

  /**
   * The attempt rows and each notification's new state; `claimNext` (Postgres) also sets up the claim
   * that follows in the transaction (readDueRowsInIndexOrder), in the same round trip.
   */
  private async record(
    trx: Transaction<Database>,
    attempts: readonly RecordedAttempt[],
    claimNext: boolean,
  ): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const settled = await this.settle(trx, attempts, claimNext);
    for (const { webhook, attempt, verdict } of attempts) {
      if (verdict.outcome === 'failed' && verdict.disableReason !== undefined) {
        await disableWebhook(trx, webhook, verdict.disableReason, attempt.finishedAt.toISOString());
      }
    }
    return attempts.map(({ row }) => settled.has(row.id));
  }

  /**
   * The attempt rows, then every notification's new state in one statement: the states as a VALUES list
   * joined to the rows, each row still guarded by its claim. On Postgres the attempts are inserted by the
   * same statement (a data-modifying WITH), so a batch is one round trip whatever its size; SQLite runs
   * the insert first. Returns the ids it settled; a row missing was no longer this instance's claim.
   */
  private async settle(
    trx: Kysely<Database>,
    attempts: readonly RecordedAttempt[],
    claimNext: boolean,
  ): Promise<Set<string>> {
    const dialect = this.store.dialect === 'postgres' ? 'postgres' : 'sqlite';
    const { insert, update } = recordStatements(dialect, attempts.length, claimNext);
    const attemptValues: unknown[] = [];
    const stateValues: unknown[] = [];
    for (const { row, attempt, verdict } of attempts) {
      const at = attempt.finishedAt.toISOString();
      attemptValues.push(
        timeOrderedId(),
        row.id,
        attempt.attemptedAt.toISOString(),
        attempt.durationMs,
        attempt.status,
        attempt.body,
        attempt.error,
      );
      stateValues.push(
        row.id,
        verdict.outcome === 'retry_scheduled' ? 'pending' : verdict.outcome,
        attempt.status,
        attempt.body ?? attempt.error,
        verdict.outcome === 'retry_scheduled' ? verdict.nextAttemptAt.toISOString() : null,
        verdict.outcome === 'delivered' ? at : null,
        at,
      );
    }
    if (insert !== null) await trx.executeQuery(CompiledQuery.raw(insert, attemptValues));
    const parameters =
      insert === null
        ? [...attemptValues, ...stateValues, this.instanceId]
        : [...stateValues, this.instanceId];
    const { rows } = await trx.executeQuery<{ id: string }>(CompiledQuery.raw(update, parameters));
    return new Set(rows.map((row) => row.id));
  }

  /** A deleted or disabled webhook's notification fails without a request (and without an attempt). */
  async failUnsent(row: Pick<NotificationsTable, 'id'>): Promise<void> {
    await this.store.db
      .updateTable('notifications')
      .set({
        status: 'failed',
        claimed_by: null,
        claim_expires_at: null,
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', row.id)
      .where('claimed_by', '=', this.instanceId)
      .where('status', '=', 'delivering')
      .execute();
  }

  /**
   * Marks due rows as ours, oldest first, in one statement. The oldest due rows are the candidates; each
   * webhook keeps as many of its own as its room allows (a window function ranks them). On Postgres the
   * candidates are picked with FOR UPDATE SKIP LOCKED, so concurrent instances never claim the same row;
   * SQLite runs one writer at a time, so its single UPDATE ... RETURNING is atomic too.
   */
  private async claim(
    db: Kysely<Database>,
    options: { limit: number; room: WebhookRoom; onlyId?: string },
  ): Promise<ClaimedNotification[]> {
    const now = this.now();
    const excluded: string[] = [];
    const limited: [string, number][] = [];
    for (const [id, free] of options.room.byWebhook) {
      if (free <= 0) excluded.push(id);
      else if (free !== options.room.otherwise) limited.push([id, free]);
    }
    const values = new Map<string, unknown>([
      ['now', now.toISOString()],
      ['cutoff', graceCutoff(now, this.planGraceMs)],
      ['expires', new Date(now.getTime() + this.claimMs).toISOString()],
      ['candidates', claimCandidates(options.limit, options.room)],
      ['limit', options.limit],
      ['otherwise', options.room.otherwise],
      ['only', options.onlyId],
    ]);
    for (const [i, id] of excluded.entries()) values.set(`excluded${i}`, id);
    for (const [i, [id, free]] of limited.entries()) {
      values.set(`limited${i}`, id);
      values.set(`free${i}`, free);
    }
    const statement = this.claimStatement({
      excluded: excluded.length,
      limited: limited.length,
      oneRow: options.onlyId !== undefined,
    });
    const parameters = statement.parameters.map((parameter) => {
      if (typeof parameter !== 'string' || !parameter.startsWith(SLOT)) return parameter;
      const value = values.get(parameter.slice(SLOT.length));
      if (value === undefined) throw new Error(`the claim statement has no value for ${parameter.slice(1)}`);
      return value;
    });
    const { rows } = await db.executeQuery<ClaimedNotification>(CompiledQuery.raw(statement.sql, parameters));
    return rows;
  }

  /** The claim statement of one shape, its values as slots; compiled at its first use. */
  private claimStatement(shape: ClaimShape): CompiledQuery {
    const key = `${shape.excluded}:${shape.limited}:${shape.oneRow}`;
    const known = this.claimStatements.get(key);
    if (known !== undefined) return known;
    const { db, dialect } = this.store;
    const excluded = Array.from({ length: shape.excluded }, (_, i) => slot(`excluded${i}`));
    const limited = Array.from({ length: shape.limited }, (_, i) => [slot(`limited${i}`), slot(`free${i}`)]);
    // Two branches, each read in the order of the (status, next_attempt_at) index so the limit stops the
    // scan early: one OR across both would sort every due row first.
    const branch = (status: 'pending' | 'delivering') => {
      let query = db
        .selectFrom('notifications')
        .select(['id', 'webhook_id', 'next_attempt_at'])
        .where('status', '=', status);
      if (status === 'delivering') query = query.where('claim_expires_at', '<=', slot('now'));
      else if (!shape.oneRow) query = query.where('next_attempt_at', '<=', slot('now'));
      if (shape.oneRow) query = query.where('id', '=', slot('only'));
      if (excluded.length > 0) query = query.where('webhook_id', 'not in', excluded);
      query = query
        .where('user_id', 'not in', lapsedUsersAt(db, slot('now'), slot('cutoff')))
        .orderBy('next_attempt_at')
        .limit(sql<number>`${slot('candidates')}`);
      if (dialect === 'postgres') query = query.forUpdate().skipLocked();
      return db.selectFrom(query.as(status)).selectAll();
    };
    const candidates = branch('pending').unionAll(branch('delivering'));
    const ranked = db
      .selectFrom(candidates.as('candidate'))
      .select([
        'candidate.id',
        'candidate.webhook_id',
        'candidate.next_attempt_at',
        sql<number>`row_number() over (partition by candidate.webhook_id order by candidate.next_attempt_at, candidate.id)`.as(
          'place',
        ),
      ]);
    // Cast: Postgres would otherwise read the parameters of a CASE as text.
    const otherwise = sql<number>`cast(${slot('otherwise')} as integer)`;
    const roomOf =
      limited.length === 0
        ? otherwise
        : sql<number>`case ranked.webhook_id ${sql.join(
            limited.map(([id, free]) => sql`when ${id} then cast(${free} as integer)`),
            sql` `,
          )} else ${otherwise} end`;
    const pick = db
      .selectFrom(ranked.as('ranked'))
      .select('ranked.id')
      .where(sql<boolean>`ranked.place <= ${roomOf}`)
      .orderBy('ranked.next_attempt_at')
      .orderBy('ranked.id')
      .limit(sql<number>`${slot('limit')}`);
    const statement = db
      .updateTable('notifications')
      .set({
        status: 'delivering',
        claimed_by: this.instanceId,
        claim_expires_at: slot('expires'),
        updated_at: slot('now'),
      })
      .where('id', 'in', pick)
      .returning(CLAIMED_COLUMNS)
      .compile();
    if (this.claimStatements.size >= MAX_CLAIM_SHAPES) {
      this.claimStatements.delete(this.claimStatements.keys().next().value!);
    }
    this.claimStatements.set(key, statement);
    return statement;
  }
}

/**
 * Postgres, for the rest of the transaction: no bitmap scans, so a claim reads the due rows in the order
 * of the (status, next_attempt_at) index and stops at its limit. Without statistics that know the backlog
 * (a burst is queued between two autovacuum ANALYZEs) the planner expects a handful of due rows and picks
 * a bitmap scan, which reads and sorts every due row on each claim: 10 ms a claim at 5,000 due, growing
 * with the backlog, against 0.3 ms in index order.
 */
async function readDueRowsInIndexOrder(trx: Transaction<Database>): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw(INDEX_ORDER));
}

const INDEX_ORDER = 'set local enable_bitmapscan = off';

/** A 410 Gone: the webhook is disabled in the same transaction as the attempt. */
function disablesWebhook({ verdict }: RecordedAttempt): boolean {
  return verdict.outcome === 'failed' && verdict.disableReason !== undefined;
}

/** Stops matching and sending to a webhook its receiver has given up on; the owner re-enables it with PUT. */
async function disableWebhook(
  trx: Transaction<Database>,
  webhook: WebhooksTable,
  reason: string,
  at: string,
) {
  await trx
    .updateTable('webhooks')
    .set({
      is_active: 0,
      is_invalid: 1,
      invalid_reason: reason,
      // Bumped as every webhook change is, so watchers stop matching it.
      change_version: await bumpWatchVersion(trx, webhook.chain, webhook.network),
      updated_at: at,
    })
    .where('id', '=', webhook.id)
    .execute();
}
