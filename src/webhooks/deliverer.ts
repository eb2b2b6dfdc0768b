import type { Registry } from 'prom-client';
import type { MasterKey } from '../custody/master-key.ts';
import type { Logger } from '../logger.ts';
import type { WebhooksTable } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { AttemptBatches } from './attempt-batches.ts';
import { classify, WebhookSender } from './delivery-attempt.ts';
import { DeliveryMetrics } from './delivery-metrics.ts';
import {
  type ClaimedNotification,
  claimCandidates,
  DeliveryQueue,
  type RecordedAttempt,
} from './delivery-queue.ts';
import { OriginBacklog } from './origin-backlog.ts';
import { BACKLOG_PER_SLOT, OriginSlots, originOf, type WebhookRoom } from './origin-slots.ts';
import { compileAllowlist, type IpAllowlist, type LookupAll } from './url-guard.ts';

/**
 * Requests in flight per origin unless configured (WEBHOOK_ORIGIN_CONCURRENCY). Over keep-alive
 * connections one origin's throughput is this many requests per round trip, so the cap is what bounds
 * a fast receiver; it stays low enough that one busy receiver cannot take the whole global concurrency.
 */
export const DEFAULT_ORIGIN_CONCURRENCY = 16;

/** Batches of attempts a deliverer on Postgres writes at once. */
const POSTGRES_PARALLEL_WRITES = 4;
/**
 * On Postgres, claims pause while this many answers (in requests of the global cap) wait for their record:
 * claims no longer wait for records, and a database that records slowly must not let them pile up.
 */
const UNRECORDED_PER_REQUEST = 4;

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

/** A claimed row and where it goes. */
interface Claimed {
  row: ClaimedNotification;
  webhook: WebhooksTable | undefined;
}

/** What the next claim may take: how many rows in all, and per webhook. */
interface ClaimRequest {
  limit: number;
  room: WebhookRoom;
}

/**
 * Sends the outbox: claims due notifications when woken (rows committed: outbox-listener.ts) and every
 * pollMs besides, sends each (signed) to its webhook and records the attempt. Rows are claimed with an
 * expiry, so another instance takes over the rows of one that died. Deliveries run concurrently under a
 * global and a per-origin cap; a saturated origin's webhooks are left out of the next claims, so a slow
 * or dead endpoint never holds up the others. The attempts that finish together are recorded in one
 * transaction, which on SQLite also claims the rows to send next (on Postgres the claims run beside the
 * records); for a receiver that keeps up, rows are claimed ahead and wait for a slot (origin-slots.ts), so
 * the requests go on while the database works.
 */
export class OutboxDeliverer {
  private readonly queue: DeliveryQueue;
  private readonly records: AttemptBatches<RecordedAttempt>;
  private readonly sender: WebhookSender;
  private readonly slots: OriginSlots;
  /** Claimed rows waiting for a slot of their origin. */
  private readonly backlog = new OriginBacklog<Claimed>();
  /** A claim is under way (the loop's, or on SQLite a record's): one at a time, so each sees the slots right. */
  private claiming = false;
  /** The last claim had room for origins that keep up and found no row: they wait for rows committed or the poll. */
  private drained = false;
  /** Postgres: an answer freed a slot that no row waits for; the next claim (after its record) is for it. */
  private hungry = false;
  /** A claim was skipped for want of room: the next delivery to end wakes the loop. */
  private starved = false;
  /** The loop's claim under way, which a record waits for before it claims in its own transaction. */
  private loopClaim: Promise<boolean> | null = null;
  /**
   * Postgres: claims run on their own beside the records (which only record), as soon as an origin that
   * keeps up has half the rows it may hold ahead left: riding on a record, a claim waited for that record's
   * statement and for a batch to start, and the backlog ran dry meanwhile. SQLite has one writer, and
   * there a record and the next claim share one transaction.
   */
  private readonly claimsBesideRecords: boolean;
  /** Rows waiting for an origin that keeps up at or below which a claim refills them (Postgres). */
  private readonly refillBelow: number;
  /** A row waiting in the backlog is sent only while its claim outlasts the request by this much. */
  private readonly sendableForMs: number;
  private readonly now: () => Date;
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
  /** Requests not answered yet, under the global cap (`concurrency`); a delivery being recorded is not one. */
  private requesting = 0;
  /** Requests sent to a receiver that keeps up and not answered yet: their records are about to follow. */
  private awaitingAnswers = 0;
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
    this.claimsBesideRecords = options.store.dialect === 'postgres';
    // Half: the claim is of some size (each costs a transaction), and the other half lasts while it runs.
    this.refillBelow = (perHostConcurrency * BACKLOG_PER_SLOT) / 2;
    this.records = new AttemptBatches((attempts) => this.recordAndClaim(attempts), {
      moreExpected: () => this.awaitingAnswers > 0,
      // Postgres commits the transactions of several connections at once, each waiting on its WAL
      // flush; SQLite has one writer.
      parallel: options.store.dialect === 'postgres' ? POSTGRES_PARALLEL_WRITES : 1,
    });
    this.sendableForMs = timeoutMs + (options.claimMarginMs ?? 15_000) / 2;
    this.now = now;
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
      await this.handBack(this.backlog.takeAll());
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
    this.drained = false;
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
    // At the start, after a poll's pause ran out and after a claim that took all it could: claim whatever
    // the backlog holds.
    let claimNow = true;
    while (this.running) {
      let more = false;
      const request: ClaimRequest | null = this.mayClaim(claimNow) ? this.claimRequest() : null;
      if (request !== null) {
        this.claiming = true;
        this.woken = false;
        this.hungry = false;
        const roomAhead = this.slots.roomAhead((origin) => this.backlog.waitingFor(origin));
        const claim: Promise<boolean> = this.queue.claimDue(request.limit, request.room).then((rows) => {
          this.drained = rows.length === 0 && roomAhead;
          return this.take(rows, request);
        });
        this.loopClaim = claim;
        try {
          more = await claim;
        } catch (error) {
          this.log.error({ err: error }, 'claiming webhook notifications failed');
        } finally {
          this.claiming = false;
          this.loopClaim = null;
        }
      }
      if (!this.running) break;
      claimNow = more;
      // Without a claim of its own (a record's is under way, or there is no room), wait to be woken.
      if (request === null || (!more && !this.woken)) claimNow = await this.pause();
      // SQLite answers synchronously: without a real yield, back-to-back full claims would starve I/O.
      // After a wake it also lets the other answers that came in with this one free their slots, so
      // one claim fills them all.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Whether the loop claims now. On SQLite, attempts being recorded claim what follows them in their own
   * transaction: the loop leaves it to them. On Postgres the loop alone claims, when rows were committed,
   * the backlog is empty, an answer freed a slot no row waits for, or an origin that keeps up runs low
   * (unless a claim that had room for such origins found nothing due).
   */
  private mayClaim(claimNow: boolean): boolean {
    if (!this.claimsBesideRecords) return !this.records.busy;
    if (this.records.unrecorded >= this.concurrency * UNRECORDED_PER_REQUEST) return false;
    if (claimNow || this.woken || this.hungry || this.backlog.size === 0) return true;
    return !this.drained && this.runsLow();
  }

  /** An origin that keeps up is down to refillBelow rows waiting. */
  private runsLow(): boolean {
    for (const origin of this.backlog.origins()) {
      if (this.slots.keepsUp(origin) && this.backlog.waitingFor(origin) <= this.refillBelow) return true;
    }
    return false;
  }

  /** Wakes the loop to claim without counting as rows committed: it claims only if mayClaim says so. */
  private refill(): void {
    this.wake?.();
  }

  /**
   * What a claim may take now, or null when none should run (stopping, another under way, no room): rows
   * for the free requests and for the backlog of origins that keep up.
   */
  private claimRequest(): ClaimRequest | null {
    if (!this.running || this.claiming) return null;
    const held = this.requesting + this.backlog.size;
    const most = this.concurrency * (1 + BACKLOG_PER_SLOT) - held;
    const waitingFor = (origin: string) => this.backlog.waitingFor(origin);
    // Rows for the free requests and, beyond them, for the backlog of the origins that keep up: one claim
    // refills that backlog, where the free requests alone let each claim (a database turn) add a few rows.
    // The rows the claim gives other origins stay within their own free slots (the room), and may wait a
    // moment for one of the global cap's.
    const limit = Math.min(this.concurrency - this.requesting + this.slots.aheadRoom(waitingFor, most), most);
    if (limit <= 0) {
      this.starved = true;
      return null;
    }
    return { limit, room: this.slots.room(waitingFor) };
  }

  /**
   * Writes finished attempts and, in the same transaction, claims the rows that take their place (unless
   * a claim is under way or the deliverer is stopping), then dispatches those.
   */
  private async recordAndClaim(attempts: readonly RecordedAttempt[]): Promise<boolean[]> {
    if (this.claimsBesideRecords) {
      try {
        return await this.queue.recordMany(attempts);
      } finally {
        // Answers freed slots: the loop claims for them if its backlog is empty or runs low.
        if (this.running) this.refill();
      }
    }
    // The loop's claim under way ends first: then this one claims.
    await this.loopClaim?.catch(() => undefined);
    const request = this.claimRequest();
    if (request === null) {
      try {
        return await this.queue.recordMany(attempts);
      } finally {
        // The slots these answers freed are for the loop's next claim to fill.
        if (this.running) this.wakeUp();
      }
    }
    this.claiming = true;
    this.woken = false;
    let more = false;
    try {
      const { kept, claimed } = await this.queue.recordAndClaim(attempts, request.limit, request.room);
      more = await this.take(claimed, request).catch((error: unknown) => this.claimFailed(error));
      return kept;
    } finally {
      this.claiming = false;
      // Rows committed meanwhile, or more due than this claim took: the loop claims again.
      if (more || this.woken) this.wakeUp();
    }
  }

  private claimFailed(error: unknown): false {
    this.log.error({ err: error }, 'dispatching claimed webhook notifications failed');
    return false;
  }

  /**
   * Sleeps for pollMs, or until an answer or a delivery frees a slot, a wake-up or stop(); true when the
   * poll's time ran out.
   */
  private pause(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (timedOut: boolean) => {
        clearTimeout(timer);
        this.wake = null;
        resolve(timedOut);
      };
      const timer = setTimeout(() => done(true), this.pollMs);
      this.wake = () => done(false);
    });
  }

  /**
   * Dispatches claimed rows: sent at once where their origin has a free slot, else kept in the backlog
   * while the origin's allowance has room, else handed back. True when another claim should follow at
   * once: the limit or every candidate was taken, or an origin that does not keep up filled up, so its
   * webhooks leave room in the next claim for the rows behind them.
   */
  private async take(rows: ClaimedNotification[], request: ClaimRequest): Promise<boolean> {
    if (rows.length === 0) return false;
    if (!this.running) {
      // Claimed beside the last records as the deliverer stopped: another instance sends them.
      await this.queue.release(rows.map((row) => row.id));
      return false;
    }
    let filled = false;
    const webhooks = await this.queue.webhooks([...new Set(rows.map((row) => row.webhook_id))]);
    const release: string[] = [];
    rows.sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : 1));
    for (const row of rows) {
      const webhook = webhooks.get(row.webhook_id);
      const origin = webhook === undefined ? '' : originOf(webhook.url);
      if (webhook !== undefined) this.slots.remember(webhook.id, origin);
      if (!this.slots.mayWait(origin, this.backlog.waitingFor(origin))) {
        // Webhooks first seen in this claim, or several sharing an origin, took more rows than it has
        // room for: hand those back; the next claims know the origin and give it only its room.
        release.push(row.id);
        filled = true;
        continue;
      }
      this.backlog.hold(origin, { row, webhook });
      // An origin that keeps up frees its slots within moments, and its next rows come then, oldest
      // first; one that does not is left out of the next claim, which reaches the rows behind it now.
      if (!this.slots.mayWait(origin, this.backlog.waitingFor(origin)) && !this.slots.keepsUp(origin)) {
        filled = true;
      }
    }
    this.pump();
    if (release.length > 0) await this.queue.release(release);
    const { limit, room } = request;
    return rows.length === limit || rows.length >= claimCandidates(limit, room) || filled;
  }

  /**
   * Sends the rows of the backlog whose origin has a free slot, while the global cap allows; a row whose
   * claim would lapse before its answer could be recorded goes back instead.
   */
  private pump(): void {
    if (!this.running) return;
    const stale: Claimed[] = [];
    const sendableAfter = this.now().getTime() + this.sendableForMs;
    for (const origin of this.backlog.origins()) {
      while (this.requesting < this.concurrency && !this.slots.isFull(origin)) {
        const next = this.backlog.next(origin);
        if (next === undefined) break;
        if (Date.parse(next.row.claim_expires_at ?? '') < sendableAfter) stale.push(next);
        else void this.dispatch(next.row, next.webhook, origin);
      }
    }
    if (stale.length > 0) void this.handBack(stale);
    if (this.claimsBesideRecords && !this.claiming && !this.drained && this.runsLow()) this.refill();
  }

  /** Rows claimed but not sent go back to pending, for this or another instance to claim at once. */
  private async handBack(claimed: readonly Claimed[]): Promise<void> {
    if (claimed.length === 0) return;
    try {
      await this.queue.release(claimed.map(({ row }) => row.id));
    } catch (error) {
      // Their claims lapse in time and the rows are claimed again then.
      this.log.error({ err: error }, 'handing back claimed webhook notifications failed');
    }
  }

  private dispatch(
    row: ClaimedNotification,
    webhook: WebhooksTable | undefined,
    origin: string,
  ): Promise<DeliveryOutcome | null> {
    this.slots.take(origin);
    this.requesting++;
    let slotHeld = true;
    // The origin's slot, and one of the global cap, are its request's: freed when the answer is in, while
    // the record is still written.
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      if (this.backlog.waitingFor(origin) === 0) this.hungry = true;
      this.slots.free(origin);
      this.requesting--;
      this.pump();
    };
    const delivery = this.deliver(row, webhook, origin, freeSlot);
    this.inFlight.add(delivery);
    void delivery.then(() => {
      this.inFlight.delete(delivery);
      freeSlot();
      this.pump();
      // A claim found every request taken: this one's end makes room for the loop's next claim.
      if (this.starved) {
        this.starved = false;
        this.wakeUp();
      }
    });
    return delivery;
  }

  /**
   * Never rejects: a failure to record leaves the claim to lapse, and the row is sent again later. A
   * recorded attempt claims the rows that follow it in its own transaction; every other end wakes the
   * loop to claim them.
   */
  private async deliver(
    row: ClaimedNotification,
    webhook: WebhooksTable | undefined,
    origin: string,
    requestDone: () => void,
  ): Promise<DeliveryOutcome | null> {
    try {
      if (webhook === undefined || !canReceive(webhook)) {
        await this.queue.failUnsent(row);
        this.metrics.countUnsent();
        this.wakeUp();
        return 'failed';
      }
      const prompt = this.slots.keepsUp(origin);
      if (prompt) this.awaitingAnswers++;
      const attempt = await this.sender.send(row, webhook).finally(() => {
        if (prompt) this.awaitingAnswers--;
      });
      this.slots.noteAnswer(origin, attempt.status, attempt.durationMs);
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
      this.wakeUp();
      return null;
    }
  }
}

/** A deleted or disabled webhook gets nothing more: its notifications fail unsent. */
function canReceive(webhook: WebhooksTable): boolean {
  return webhook.deleted_at === null && webhook.is_active === 1 && webhook.is_invalid !== 1;
}
