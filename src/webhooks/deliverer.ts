import type { Registry } from 'prom-client';
import type { MasterKey } from '../custody/master-key.ts';
import type { Logger } from '../logger.ts';
import type { NotificationsTable, WebhooksTable } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { AttemptBatches } from './attempt-batches.ts';
import { classify, WebhookSender } from './delivery-attempt.ts';
import { DeliveryMetrics } from './delivery-metrics.ts';
import { claimCandidates, DeliveryQueue, type RecordedAttempt } from './delivery-queue.ts';
import { OriginSlots, originOf } from './origin-slots.ts';
import { compileAllowlist, type IpAllowlist, type LookupAll } from './url-guard.ts';

/**
 * Requests in flight per origin unless configured (WEBHOOK_ORIGIN_CONCURRENCY). Over keep-alive
 * connections one origin's throughput is this many requests per round trip, so the cap is what bounds
 * a fast receiver; it stays low enough that one busy receiver cannot take the whole global concurrency.
 */
export const DEFAULT_ORIGIN_CONCURRENCY = 16;

export type DeliveryOutcome = 'delivered' | 'failed' | 'retry_scheduled';

export interface OutboxDelivererOptions {
  store: Store;
  masterKey: MasterKey;
  logger: Logger;
  metrics: Registry;
  /** Written into `claimed_by`; unique per running process. */
  instanceId: string;
  /** A 2xx must arrive within this time (connect included). */
  timeoutMs?: number;
  concurrency?: number;
  /** Requests in flight per origin (scheme, host and port); default DEFAULT_ORIGIN_CONCURRENCY. */
  perHostConcurrency?: number;
  pollMs?: number;
  allowlist: IpAllowlist;
  now?: () => Date;
  /** How long a claim outlives the request timeout: room for the database writes after it. */
  claimMarginMs?: number;
  /** Resolver for the URL guard (tests stage DNS answers with it). */
  lookup?: LookupAll;
  /** Notifications of a user whose plan lapsed (past this grace) wait until it is renewed. */
  planGraceMs?: number;
}

/**
 * Sends the outbox: claims due notifications when woken (rows committed: outbox-listener.ts) and every
 * pollMs besides, sends each (signed) to its webhook and records the attempt. Rows are claimed with an
 * expiry, so another instance takes over the rows of one that died. Deliveries run concurrently under a
 * global and a per-origin cap; a saturated origin's webhooks are left out of the next claims, so a slow
 * or dead endpoint never holds up the others.
 */
export class OutboxDeliverer {
  private readonly queue: DeliveryQueue;
  private readonly records: AttemptBatches<RecordedAttempt>;
  private readonly sender: WebhookSender;
  private readonly slots: OriginSlots;
  private readonly log: Logger;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly metrics: DeliveryMetrics;

  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Set by wakeUp(): rows were committed since the last claim began, so the next one runs at once. */
  private woken = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /**
   * Aborted when a stop's grace is over: the sends still waiting end, and their rows are handed back. A
   * stop cut short is the process's last (a shutdown): the deliverer sends nothing after it.
   */
  private readonly abandon = new AbortController();

  constructor(options: OutboxDelivererOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const perHostConcurrency = Math.max(1, options.perHostConcurrency ?? DEFAULT_ORIGIN_CONCURRENCY);
    const now = options.now ?? (() => new Date());
    compileAllowlist(options.allowlist); // a bad entry fails at start-up, not at the first delivery
    this.queue = new DeliveryQueue({
      store: options.store,
      instanceId: options.instanceId,
      claimMs: timeoutMs + (options.claimMarginMs ?? 15_000),
      planGraceMs: options.planGraceMs ?? 0,
      now,
    });
    this.records = new AttemptBatches((attempts) => this.queue.recordMany(attempts));
    this.sender = new WebhookSender({
      masterKey: options.masterKey,
      allowlist: options.allowlist,
      timeoutMs,
      connectionsPerOrigin: perHostConcurrency,
      lookup: options.lookup,
      now,
      abandon: this.abandon.signal,
    });
    this.slots = new OriginSlots(perHostConcurrency);
    this.log = options.logger.child({ component: 'webhook-deliverer' });
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.pollMs = options.pollMs ?? 250;
    this.metrics = new DeliveryMetrics(options.metrics);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops claiming and waits for the deliveries in flight to be sent and recorded; when `abandon` aborts
   * first (a shutdown's grace is over), those still waiting on their receiver are cut off and handed back
   * unsent, so that another instance delivers them at once rather than when their claim lapses.
   */
  async stop(abandon?: AbortSignal): Promise<void> {
    this.running = false;
    this.wake?.();
    const abandonNow = () => this.abandon.abort();
    if (abandon?.aborted) abandonNow();
    abandon?.addEventListener('abort', abandonNow, { once: true });
    try {
      await this.loop;
      this.loop = null;
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    } finally {
      abandon?.removeEventListener('abort', abandonNow);
    }
    await this.sender.close();
  }

  /**
   * Rows became due (the watcher committed some, a retry was asked): claim now rather than at the next
   * poll. A wake during a claim makes another claim follow it, so none is lost.
   */
  wakeUp(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Claims one notification now (pending, whatever its next attempt time, or a lapsed claim) and
   * delivers it; null when it is not claimable (delivered, failed, or being sent elsewhere).
   */
  async deliverNow(notificationId: string): Promise<DeliveryOutcome | null> {
    const row = await this.queue.claimOne(notificationId);
    if (row === undefined) return null;
    const webhook = (await this.queue.webhooks([row.webhook_id])).get(row.webhook_id);
    return this.dispatch(row, webhook, webhook === undefined ? '' : originOf(webhook.url));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const capacity = this.concurrency - this.inFlight.size;
      this.woken = false;
      let more = false;
      if (capacity > 0) {
        try {
          more = await this.claimBatch(capacity);
        } catch (error) {
          this.log.error({ err: error }, 'claiming webhook notifications failed');
        }
      }
      if (!this.running) break;
      if (!more && !(this.woken && capacity > 0)) await this.pause();
      // SQLite answers synchronously: without a real yield, back-to-back full claims would starve I/O.
      // After a wake it also lets the other answers that came in with this one free their slots, so
      // one claim fills them all.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Sleeps for pollMs, or until an answer or a delivery frees a slot, a wake-up or stop(). */
  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.wake = done;
    });
  }

  /**
   * Claims and dispatches up to `limit` rows. True when another claim should follow at once: the limit or
   * every candidate was taken, or an origin filled up, so its webhooks leave room in the next claim for
   * the rows behind them.
   */
  private async claimBatch(limit: number): Promise<boolean> {
    const room = this.slots.room();
    const rows = await this.queue.claimDue(limit, room);
    if (rows.length === 0) return false;
    let filled = false;
    const webhooks = await this.queue.webhooks([...new Set(rows.map((row) => row.webhook_id))]);
    const release: string[] = [];
    rows.sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : 1));
    for (const row of rows) {
      const webhook = webhooks.get(row.webhook_id);
      const origin = webhook === undefined ? '' : originOf(webhook.url);
      if (webhook !== undefined) this.slots.remember(webhook.id, origin);
      if (this.slots.isFull(origin)) {
        // Webhooks first seen in this claim, or several sharing an origin, took more rows than it has
        // slots: hand those back; the next claims know the origin and give it only its free slots.
        release.push(row.id);
        continue;
      }
      void this.dispatch(row, webhook, origin);
      if (this.slots.isFull(origin)) filled = true;
    }
    if (release.length > 0) await this.queue.release(release);
    return rows.length === limit || rows.length >= claimCandidates(limit, room) || filled;
  }

  private dispatch(
    row: NotificationsTable,
    webhook: WebhooksTable | undefined,
    origin: string,
  ): Promise<DeliveryOutcome | null> {
    this.slots.take(origin);
    let slotHeld = true;
    // The origin's slot is its request's: freed when the answer is in, while the record is still written.
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.slots.free(origin);
      this.wake?.();
    };
    const delivery = this.deliver(row, webhook, freeSlot);
    this.inFlight.add(delivery);
    void delivery.finally(() => {
      this.inFlight.delete(delivery);
      freeSlot();
      this.wake?.();
    });
    return delivery;
  }

  /** Never rejects: a failure to record leaves the claim to lapse, and the row is sent again later. */
  private async deliver(
    row: NotificationsTable,
    webhook: WebhooksTable | undefined,
    requestDone: () => void,
  ): Promise<DeliveryOutcome | null> {
    try {
      if (webhook === undefined || !canReceive(webhook)) {
        await this.queue.failUnsent(row);
        this.metrics.countUnsent();
        return 'failed';
      }
      const attempt = await this.sender.send(row, webhook);
      requestDone();
      // Cut off by the shutdown before the receiver answered: not its attempt, the row goes back.
      if (attempt.status === null && this.sender.abandoned) {
        await this.queue.release([row.id]);
        return null;
      }
      const verdict = classify(row, webhook, attempt);
      const kept = await this.records.record({ row, webhook, attempt, verdict });
      if (!kept) {
        this.log.warn(
          { notification: row.id },
          'webhook claim lapsed during delivery; another instance may resend it',
        );
      }
      this.metrics.observeAttempt(attempt, verdict, row.block_time);
      if (verdict.outcome !== 'delivered') {
        this.log.info(
          {
            notification: row.id,
            webhook: webhook.id,
            status: attempt.status,
            error: attempt.error,
            outcome: verdict.outcome,
          },
          'webhook delivery failed',
        );
      }
      return verdict.outcome;
    } catch (error) {
      this.log.error({ err: error, notification: row.id }, 'recording a webhook delivery failed');
      return null;
    }
  }
}

/** A deleted or disabled webhook gets nothing more: its notifications fail unsent. */
function canReceive(webhook: WebhooksTable): boolean {
  return webhook.deleted_at === null && webhook.is_active === 1 && webhook.is_invalid !== 1;
}
