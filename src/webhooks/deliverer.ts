import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Transaction } from 'kysely';
import { Counter, Histogram, type Registry } from 'prom-client';
import { type Agent, request } from 'undici';
import { lapsedUsers } from '../accounts/lifecycle.ts';
import type { MasterKey } from '../custody/master-key.ts';
import type { Logger } from '../logger.ts';
import type { Database, NotificationsTable, WebhooksTable } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { nextBackoffDelayMs } from './retry-schedule.ts';
import { chaingatewaySignature, standardWebhookHeaders } from './signing.ts';
import {
  compileAllowlist,
  guardedDispatcher,
  type IpAllowlist,
  type LookupAll,
  staticUrlRefusal,
} from './url-guard.ts';
import { bumpWatchVersion } from './watch-versions.ts';

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
  /** Deliveries in flight per origin (scheme, host and port). */
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

type NotificationRow = NotificationsTable;
type WebhookRow = WebhooksTable;

interface AttemptResult {
  attemptedAt: Date;
  finishedAt: Date;
  durationMs: number;
  status: number | null;
  body: string | null;
  error: string | null;
  retryAfter: string | null;
}

type Verdict =
  | { outcome: 'delivered' }
  | { outcome: 'retry_scheduled'; nextAttemptAt: Date }
  | { outcome: 'failed'; disableReason?: string };

/** What is kept of a receiver's answer (and of an error text): enough to debug, bounded in size. */
const KEEP_BYTES = 1024;
/** Read (and discard) at most this much more of a response, so the connection can be reused. */
const DRAIN_BYTES = 64 * 1024;
/** Bounds the exclusion list sent with each claim query. */
const MAX_EXCLUDED_WEBHOOKS = 500;
const USER_AGENT = 'Switchyard-Webhooks/1';

/**
 * Sends the outbox: claims due notification rows, POSTs each (signed) to its webhook and records the
 * attempt. Rows are claimed with an expiry, so another instance takes over the rows of one that died.
 * Deliveries run concurrently under a global and a per-origin cap; a saturated origin's webhooks are
 * left out of the next claims, so a slow or dead endpoint never holds up the others.
 */
export class OutboxDeliverer {
  private readonly store: Store;
  private readonly masterKey: MasterKey;
  private readonly log: Logger;
  private readonly instanceId: string;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly perHostConcurrency: number;
  private readonly pollMs: number;
  private readonly claimMarginMs: number;
  private readonly allowlist: IpAllowlist;
  private readonly lookup: LookupAll | undefined;
  private readonly now: () => Date;
  private readonly metrics: DeliveryMetrics;
  private readonly planGraceMs: number;

  private agent: Agent | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly busyByOrigin = new Map<string, number>();
  /** Which origin each recently seen webhook posts to, and the reverse, to exclude saturated origins. */
  private readonly originOfWebhook = new Map<string, string>();
  private readonly webhooksOfOrigin = new Map<string, Set<string>>();

  constructor(options: OutboxDelivererOptions) {
    this.store = options.store;
    this.masterKey = options.masterKey;
    this.log = options.logger.child({ component: 'webhook-deliverer' });
    this.instanceId = options.instanceId;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.perHostConcurrency = Math.max(1, options.perHostConcurrency ?? 4);
    this.pollMs = options.pollMs ?? 250;
    this.claimMarginMs = options.claimMarginMs ?? 15_000;
    this.allowlist = options.allowlist;
    compileAllowlist(this.allowlist); // a bad entry fails at start-up, not at the first delivery
    this.lookup = options.lookup;
    this.now = options.now ?? (() => new Date());
    this.planGraceMs = options.planGraceMs ?? 0;
    this.metrics = deliveryMetrics(options.metrics);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming and waits for the deliveries in flight to be sent and recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const agent = this.agent;
    this.agent = null;
    await agent?.close();
  }

  /**
   * Claims one notification now (pending, whatever its next attempt time, or a lapsed claim) and
   * delivers it; null when it is not claimable (delivered, failed, or being sent elsewhere).
   */
  async deliverNow(notificationId: string): Promise<DeliveryOutcome | null> {
    const [row] = await this.claim({ limit: 1, onlyId: notificationId });
    if (row === undefined) return null;
    const webhooks = await this.loadWebhooks([row.webhook_id]);
    const webhook = webhooks.get(row.webhook_id);
    return this.dispatch(row, webhook, webhook === undefined ? '' : originOf(webhook.url));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const capacity = this.concurrency - this.inFlight.size;
      let more = false;
      if (capacity > 0) {
        try {
          more = (await this.claimBatch(capacity)) === capacity;
        } catch (error) {
          this.log.error({ err: error }, 'claiming webhook notifications failed');
        }
      }
      if (!this.running) break;
      // SQLite answers synchronously: without a real yield, back-to-back full claims would starve I/O.
      if (more) await new Promise((resolve) => setImmediate(resolve));
      else await this.pause();
    }
  }

  /** Sleeps for pollMs, or until a delivery finishes (capacity is free again) or stop() is called. */
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

  private async claimBatch(limit: number): Promise<number> {
    const rows = await this.claim({ limit, excludeWebhookIds: this.saturatedWebhooks() });
    if (rows.length === 0) return 0;
    const webhooks = await this.loadWebhooks([...new Set(rows.map((row) => row.webhook_id))]);
    const release: string[] = [];
    rows.sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : 1));
    for (const row of rows) {
      const webhook = webhooks.get(row.webhook_id);
      const origin = webhook === undefined ? '' : originOf(webhook.url);
      if (webhook !== undefined) this.rememberOrigin(webhook.id, origin);
      if ((this.busyByOrigin.get(origin) ?? 0) >= this.perHostConcurrency) {
        // Its origin filled up within this batch: hand it back; later claims skip that origin.
        release.push(row.id);
        continue;
      }
      void this.dispatch(row, webhook, origin);
    }
    if (release.length > 0) await this.release(release);
    return rows.length;
  }

  private dispatch(
    row: NotificationRow,
    webhook: WebhookRow | undefined,
    origin: string,
  ): Promise<DeliveryOutcome | null> {
    this.busyByOrigin.set(origin, (this.busyByOrigin.get(origin) ?? 0) + 1);
    const delivery = this.deliver(row, webhook);
    this.inFlight.add(delivery);
    void delivery.finally(() => {
      this.inFlight.delete(delivery);
      const busy = (this.busyByOrigin.get(origin) ?? 1) - 1;
      if (busy <= 0) this.busyByOrigin.delete(origin);
      else this.busyByOrigin.set(origin, busy);
      this.wake?.();
    });
    return delivery;
  }

  /** Never rejects: a failure to record leaves the claim to lapse, and the row is sent again later. */
  private async deliver(
    row: NotificationRow,
    webhook: WebhookRow | undefined,
  ): Promise<DeliveryOutcome | null> {
    try {
      if (
        webhook === undefined ||
        webhook.deleted_at !== null ||
        webhook.is_active !== 1 ||
        webhook.is_invalid === 1
      ) {
        await this.finishUnsent(row);
        this.metrics.deliveries.inc({ outcome: 'failed' });
        return 'failed';
      }
      const attempt = await this.attempt(row, webhook);
      const verdict = judge(row, webhook, attempt);
      await this.record(row, webhook, attempt, verdict);
      this.metrics.deliveries.inc({ outcome: verdict.outcome });
      this.metrics.duration.observe(attempt.durationMs / 1000);
      if (verdict.outcome === 'delivered') {
        const sinceBlock = (attempt.finishedAt.getTime() - Date.parse(row.block_time)) / 1000;
        if (Number.isFinite(sinceBlock)) this.metrics.blockToDelivery.observe(Math.max(0, sinceBlock));
      } else {
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

  /** One signed POST; never throws, every failure becomes the attempt's error text. */
  private async attempt(row: NotificationRow, webhook: WebhookRow): Promise<AttemptResult> {
    const attemptedAt = this.now();
    const started = performance.now();
    const result = (fields: Partial<AttemptResult>): AttemptResult => ({
      attemptedAt,
      finishedAt: this.now(),
      durationMs: Math.round(performance.now() - started),
      status: null,
      body: null,
      error: null,
      retryAfter: null,
      ...fields,
    });
    const refusal = staticUrlRefusal(webhook.url, this.allowlist);
    if (refusal !== null) return result({ error: `refused: the URL ${refusal}` });
    let headers: Record<string, string>;
    try {
      headers = this.headers(row, webhook, attemptedAt);
    } catch {
      return result({ error: "cannot open the webhook's signing secret (was the master key changed?)" });
    }
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await request(webhook.url, {
        method: 'POST',
        headers,
        body: row.payload,
        dispatcher: this.dispatcher(),
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const retryAfter = response.headers['retry-after'];
      return result({
        status: response.statusCode,
        body: await readPrefix(response.body),
        retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
      });
    } catch (error) {
      return result({ error: describeError(error, signal.aborted, this.timeoutMs) });
    }
  }

  private headers(row: NotificationRow, webhook: WebhookRow, at: Date): Record<string, string> {
    const secrets = [this.masterKey.open(webhook.secret_sealed, webhook.id)];
    const previousUntil = webhook.previous_secret_expires_at;
    if (
      webhook.previous_secret_sealed !== null &&
      previousUntil !== null &&
      Date.parse(previousUntil) > at.getTime()
    ) {
      secrets.push(this.masterKey.open(webhook.previous_secret_sealed, `${webhook.id}:previous`));
    }
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...standardWebhookHeaders({
        id: row.id,
        timestamp: Math.floor(at.getTime() / 1000),
        body: row.payload,
        secrets,
      }),
      'x-signature': chaingatewaySignature(secrets[0]!, row.txid),
    };
  }

  private dispatcher(): Agent {
    this.agent ??= guardedDispatcher(this.allowlist, {
      connectTimeoutMs: this.timeoutMs,
      connectionsPerOrigin: this.perHostConcurrency,
      ...(this.lookup === undefined ? {} : { lookup: this.lookup }),
    });
    return this.agent;
  }

  /** The attempt row and the notification's new state in one transaction; 410 also disables the webhook. */
  private async record(row: NotificationRow, webhook: WebhookRow, attempt: AttemptResult, verdict: Verdict) {
    const at = attempt.finishedAt.toISOString();
    const kept = await this.store.db.transaction().execute(async (trx) => {
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
    if (!kept) {
      this.log.warn(
        { notification: row.id },
        'webhook claim lapsed during delivery; another instance may resend it',
      );
    }
  }

  /** A deleted or disabled webhook's notification fails without a request (and without an attempt). */
  private async finishUnsent(row: NotificationRow): Promise<void> {
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
  private async claim(options: { limit: number; excludeWebhookIds?: string[]; onlyId?: string }) {
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
    const excluded = options.excludeWebhookIds ?? [];
    if (excluded.length > 0) pick = pick.where('webhook_id', 'not in', excluded);
    pick = pick.where('user_id', 'not in', lapsedUsers(db, now, this.planGraceMs));
    pick = pick.orderBy('next_attempt_at').orderBy('id').limit(options.limit);
    if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
    return db
      .updateTable('notifications')
      .set({
        status: 'delivering',
        claimed_by: this.instanceId,
        claim_expires_at: new Date(now.getTime() + this.timeoutMs + this.claimMarginMs).toISOString(),
        updated_at: nowIso,
      })
      .where('id', 'in', pick)
      .returningAll()
      .execute();
  }

  private async release(ids: string[]): Promise<void> {
    await this.store.db
      .updateTable('notifications')
      .set({ status: 'pending', claimed_by: null, claim_expires_at: null })
      .where('id', 'in', ids)
      .where('claimed_by', '=', this.instanceId)
      .where('status', '=', 'delivering')
      .execute();
  }

  private async loadWebhooks(ids: string[]): Promise<Map<string, WebhookRow>> {
    const rows = await this.store.db.selectFrom('webhooks').selectAll().where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [row.id, row]));
  }

  private rememberOrigin(webhookId: string, origin: string): void {
    const previous = this.originOfWebhook.get(webhookId);
    if (previous === origin) return;
    if (previous !== undefined) this.webhooksOfOrigin.get(previous)?.delete(webhookId);
    if (this.originOfWebhook.size >= 50_000) {
      // Only an optimisation: forgetting costs at most one handed-back claim per webhook.
      this.originOfWebhook.clear();
      this.webhooksOfOrigin.clear();
    }
    this.originOfWebhook.set(webhookId, origin);
    let ids = this.webhooksOfOrigin.get(origin);
    if (ids === undefined) {
      ids = new Set();
      this.webhooksOfOrigin.set(origin, ids);
    }
    ids.add(webhookId);
  }

  private saturatedWebhooks(): string[] {
    const excluded: string[] = [];
    for (const [origin, busy] of this.busyByOrigin) {
      if (busy < this.perHostConcurrency) continue;
      for (const id of this.webhooksOfOrigin.get(origin) ?? []) {
        if (excluded.length >= MAX_EXCLUDED_WEBHOOKS) return excluded;
        excluded.push(id);
      }
    }
    return excluded;
  }
}

/**
 * The API's manual retry: the owner's failed notification goes back to pending, due now, with the same
 * id (receivers dedupe on it). Returns false when there is no such failed notification.
 */
export async function retryNotification(
  store: Store,
  userId: string,
  notificationId: string,
  now: Date = new Date(),
): Promise<boolean> {
  const at = now.toISOString();
  const result = await store.db
    .updateTable('notifications')
    .set({ status: 'pending', next_attempt_at: at, claimed_by: null, claim_expires_at: null, updated_at: at })
    .where('id', '=', notificationId)
    .where('user_id', '=', userId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

function judge(row: NotificationRow, webhook: WebhookRow, attempt: AttemptResult): Verdict {
  const status = attempt.status;
  if (status !== null && status >= 200 && status < 300) return { outcome: 'delivered' };
  // Standard Webhooks: 410 means the receiver is gone for good; stop sending to it.
  if (status === 410) return { outcome: 'failed', disableReason: 'the endpoint answered 410 Gone' };
  if (webhook.retry_policy === 'backoff') {
    const delay = nextBackoffDelayMs(row.attempts + 1, attempt.retryAfter, attempt.finishedAt);
    if (delay !== null) {
      return { outcome: 'retry_scheduled', nextAttemptAt: new Date(attempt.finishedAt.getTime() + delay) };
    }
  }
  return { outcome: 'failed' };
}

async function disableWebhook(trx: Transaction<Database>, webhook: WebhookRow, reason: string, at: string) {
  // Bumped as every webhook change is, so watchers stop matching it.
  const version = await bumpWatchVersion(trx, webhook.chain, webhook.network);
  await trx
    .updateTable('webhooks')
    .set({
      is_active: 0,
      is_invalid: 1,
      invalid_reason: reason,
      change_version: version,
      updated_at: at,
    })
    .where('id', '=', webhook.id)
    .execute();
}

/** Scheme, host and port: the unit of the per-host cap (two ports are two servers). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** The first KEEP_BYTES of a response as text; reading stops quietly on error or past DRAIN_BYTES. */
async function readPrefix(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  try {
    for await (const chunk of body) {
      if (kept < KEEP_BYTES) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      seen += chunk.length;
      if (seen > DRAIN_BYTES) break; // leaving the loop destroys the body (and its connection)
    }
  } catch {
    // The status already decided the outcome; a body cut short is still worth keeping.
  }
  return cleanText(Buffer.concat(chunks).subarray(0, KEEP_BYTES).toString('utf8'));
}

function describeError(error: unknown, timedOut: boolean, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  const timeoutCodes = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'];
  if (timedOut || (typeof code === 'string' && timeoutCodes.includes(code)))
    return `timed out after ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'WEBHOOK_URL_REFUSED') return cleanText(`refused: ${message}`);
  return cleanText(typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message);
}

/** Postgres text cannot hold NUL, and a stored text field stays small. */
function cleanText(text: string): string {
  return text.replaceAll('\u0000', '').slice(0, KEEP_BYTES);
}

interface DeliveryMetrics {
  deliveries: Counter<'outcome'>;
  duration: Histogram;
  blockToDelivery: Histogram;
}

/** Registered once per registry: several deliverers (tests, or one per role) may share it. */
function deliveryMetrics(registry: Registry): DeliveryMetrics {
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
  return {
    deliveries:
      existing<Counter<'outcome'>>('switchyard_webhook_deliveries_total') ??
      new Counter({
        name: 'switchyard_webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome (delivered, failed, retry_scheduled)',
        labelNames: ['outcome'] as const,
        registers: [registry],
      }),
    duration:
      existing<Histogram>('switchyard_webhook_delivery_duration_seconds') ??
      new Histogram({
        name: 'switchyard_webhook_delivery_duration_seconds',
        help: 'Time from sending a webhook to having its response (or error)',
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
        registers: [registry],
      }),
    blockToDelivery:
      existing<Histogram>('switchyard_block_to_delivery_seconds') ??
      new Histogram({
        name: 'switchyard_block_to_delivery_seconds',
        help: "Time from a transfer's block to its webhook being delivered",
        buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86_400],
        registers: [registry],
      }),
  };
}
