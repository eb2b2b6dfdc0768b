import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { lapsedUsers } from '../accounts/lifecycle.ts';
import type { Database, NotificationsTable, WebhooksTable } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import type { AttemptResult, Verdict } from './delivery-attempt.ts';
import { bumpWatchVersion } from './watch-versions.ts';

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

  constructor(options: DeliveryQueueOptions) {
    this.store = options.store;
    this.instanceId = options.instanceId;
    this.claimMs = options.claimMs;
    this.planGraceMs = options.planGraceMs;
    this.now = options.now;
  }

  /** Up to `limit` due rows, oldest first, leaving out the webhooks listed. */
  claimDue(limit: number, excludeWebhookIds: readonly string[]): Promise<NotificationsTable[]> {
    return this.claim({ limit, excludeWebhookIds });
  }

  /** One row now: pending whatever its next attempt time, or with a lapsed claim; else undefined. */
  async claimOne(notificationId: string): Promise<NotificationsTable | undefined> {
    const [row] = await this.claim({ limit: 1, onlyId: notificationId, excludeWebhookIds: [] });
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
   * The attempt row and the notification's new state in one transaction; a verdict with a disable
   * reason (410) also disables the webhook. False when the claim had lapsed: the row was left alone.
   */
  async record(
    row: NotificationsTable,
    webhook: WebhooksTable,
    attempt: AttemptResult,
    verdict: Verdict,
  ): Promise<boolean> {
    const at = attempt.finishedAt.toISOString();
    return this.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('notification_attempts')
        .values({
          id: randomUUID(),
          notification_id: row.id,
          attempted_at: attempt.attemptedAt.toISOString(),
          duration_ms: attempt.durationMs,
          response_status: attempt.status,
          response_body: attempt.body,
          error: attempt.error,
        })
        .execute();
      const updated = await trx
        .updateTable('notifications')
        .set((eb) => ({
          status: verdict.outcome === 'retry_scheduled' ? 'pending' : verdict.outcome,
          attempts: eb('attempts', '+', 1),
          response_status: attempt.status,
          response_body: attempt.body ?? attempt.error,
          claimed_by: null,
          claim_expires_at: null,
          updated_at: at,
          ...(verdict.outcome === 'delivered' ? { delivered_at: at } : {}),
          ...(verdict.outcome === 'retry_scheduled'
            ? { next_attempt_at: verdict.nextAttemptAt.toISOString() }
            : {}),
        }))
        .where('id', '=', row.id)
        .where('claimed_by', '=', this.instanceId)
        .where('status', '=', 'delivering')
        .executeTakeFirst();
      if (verdict.outcome === 'failed' && verdict.disableReason !== undefined) {
        await disableWebhook(trx, webhook, verdict.disableReason, at);
      }
      return Number(updated.numUpdatedRows) === 1;
    });
  }

  /** A deleted or disabled webhook's notification fails without a request (and without an attempt). */
  async failUnsent(row: NotificationsTable): Promise<void> {
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
   * Marks due rows as ours, oldest first, in one statement: on Postgres the rows are picked with
   * FOR UPDATE SKIP LOCKED, so concurrent instances never claim the same row; SQLite runs one
   * writer at a time, so its single UPDATE ... RETURNING is atomic too.
   */
  private async claim(options: { limit: number; excludeWebhookIds: readonly string[]; onlyId?: string }) {
    const now = this.now();
    const nowIso = now.toISOString();
    const { db, dialect } = this.store;
    let pick = db
      .selectFrom('notifications')
      .select('id')
      .where((eb) =>
        eb.or([
          options.onlyId === undefined
            ? eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)])
            : eb('status', '=', 'pending'),
          eb.and([eb('status', '=', 'delivering'), eb('claim_expires_at', '<=', nowIso)]),
        ]),
      );
    if (options.onlyId !== undefined) pick = pick.where('id', '=', options.onlyId);
    if (options.excludeWebhookIds.length > 0) {
      pick = pick.where('webhook_id', 'not in', options.excludeWebhookIds);
    }
    pick = pick.where('user_id', 'not in', lapsedUsers(db, now, this.planGraceMs));
    pick = pick.orderBy('next_attempt_at').orderBy('id').limit(options.limit);
    if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
    return db
      .updateTable('notifications')
      .set({
        status: 'delivering',
        claimed_by: this.instanceId,
        claim_expires_at: new Date(now.getTime() + this.claimMs).toISOString(),
        updated_at: nowIso,
      })
      .where('id', 'in', pick)
      .returningAll()
      .execute();
  }
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
