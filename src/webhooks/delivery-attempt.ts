import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { type Agent, request } from 'undici';
import type { MasterKey } from '../custody/master-key.ts';
import type { NotificationsTable, WebhooksTable } from '../store/schema.ts';
import { nextBackoffDelayMs } from './retry-schedule.ts';
import { chaingatewaySignature, standardWebhookHeaders } from './signing.ts';
import { guardedDispatcher, type IpAllowlist, type LookupAll, staticUrlRefusal } from './url-guard.ts';

/** What one attempt needs of the notification. */
export type OutgoingNotification = Pick<NotificationsTable, 'id' | 'payload' | 'txid' | 'attempts'>;

/** What one attempt needs of the webhook it goes to. */
export type Receiver = Pick<
  WebhooksTable,
  'id' | 'url' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at' | 'retry_policy'
>;

/** How one POST went: the receiver's status and the start of its answer, or why there was none. */
export interface AttemptResult {
  attemptedAt: Date;
  finishedAt: Date;
  durationMs: number;
  status: number | null;
  body: string | null;
  error: string | null;
  retryAfter: string | null;
}

/** What becomes of the notification after an attempt. */
export type Verdict =
  | { outcome: 'delivered' }
  | { outcome: 'retry_scheduled'; nextAttemptAt: Date }
  | { outcome: 'failed'; disableReason?: string };

export interface WebhookSenderOptions {
  masterKey: MasterKey;
  allowlist: IpAllowlist;
  /** A 2xx must arrive within this time (connect included). */
  timeoutMs: number;
  /** Connections kept per origin; matches the deliverer's per-origin cap. */
  connectionsPerOrigin: number;
  lookup?: LookupAll | undefined;
  now: () => Date;
  /**
   * Aborted at shutdown once the grace for work in flight is over: a POST still waiting ends at once, and
   * its caller, seeing `abandoned`, hands the notification back instead of recording an attempt.
   */
  abandon?: AbortSignal;
}

/** What is kept of a receiver's answer (and of an error text): enough to debug, bounded in size. */
const KEEP_BYTES = 1024;
/** Read (and discard) at most this much more of a response, so the connection can be reused. */
const DRAIN_BYTES = 64 * 1024;
const USER_AGENT = 'Switchyard-Webhooks/1';
/** Past this many webhooks the opened secrets (and URL checks) are forgotten and redone when next used. */
const MAX_OPENED_SECRETS = 10_000;

/** A webhook's signing secrets as opened, with the sealed values they came from. */
interface OpenedSecrets {
  sealed: string;
  current: string;
  previousSealed: string | null;
  /** Opened when first needed: an expired previous secret is never opened. */
  previous?: string;
}

/** Signs a notification and POSTs it to its webhook through the URL guard; knows nothing of the database. */
export class WebhookSender {
  private agent: Agent | null = null;
  /**
   * Secrets opened for earlier sends, by webhook: opening (AES-GCM under the master key) on every attempt
   * was a large share of a delivery's CPU. A rotation seals new values, which are opened afresh.
   */
  private readonly opened = new Map<string, OpenedSecrets>();
  /** Why each webhook URL seen is refused (or null), as staticUrlRefusal answers; it depends on nothing else. */
  private readonly refusals = new Map<string, string | null>();
  /** The sends waiting on their receiver, each with its own controller: a shutdown aborts them all. */
  private readonly waiting = new Set<AbortController>();

  constructor(private readonly options: WebhookSenderOptions) {
    const { abandon } = options;
    abandon?.addEventListener(
      'abort',
      () => {
        for (const controller of this.waiting) controller.abort(abandon.reason);
      },
      { once: true },
    );
  }

  /** One signed POST; never throws, every failure becomes the attempt's error text. */
  async send(notification: OutgoingNotification, webhook: Receiver): Promise<AttemptResult> {
    const { now, timeoutMs } = this.options;
    const attemptedAt = now();
    const started = performance.now();
    const result = (fields: Partial<AttemptResult>): AttemptResult => ({
      attemptedAt,
      finishedAt: now(),
      durationMs: Math.round(performance.now() - started),
      status: null,
      body: null,
      error: null,
      retryAfter: null,
      ...fields,
    });
    const refusal = this.refusalOf(webhook.url);
    if (refusal !== null) return result({ error: `refused: the URL ${refusal}` });
    let headers: Record<string, string>;
    try {
      headers = this.headers(notification, webhook, attemptedAt);
    } catch {
      return result({ error: "cannot open the webhook's signing secret (was the master key changed?)" });
    }
    // One controller and timer per send, ended by the timeout or the shutdown's abandon: AbortSignal.timeout
    // joined to the abandon signal by AbortSignal.any cost several times as much on every request.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    this.waiting.add(controller);
    if (this.abandoned) controller.abort(this.options.abandon?.reason);
    try {
      const response = await request(webhook.url, {
        method: 'POST',
        headers,
        body: notification.payload,
        dispatcher: this.dispatcher(),
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const retryAfter = response.headers['retry-after'];
      return result({
        status: response.statusCode,
        body: await readPrefix(response.body),
        retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
      });
    } catch (error) {
      return result({ error: describeError(error, timedOut, timeoutMs) });
    } finally {
      clearTimeout(timer);
      this.waiting.delete(controller);
    }
  }

  private refusalOf(url: string): string | null {
    let refusal = this.refusals.get(url);
    if (refusal === undefined) {
      refusal = staticUrlRefusal(url, this.options.allowlist);
      if (this.refusals.size >= MAX_OPENED_SECRETS) this.refusals.clear();
      this.refusals.set(url, refusal);
    }
    return refusal;
  }

  /** The shutdown abandoned the sends in flight: what they answered is no attempt of the receiver's. */
  get abandoned(): boolean {
    return this.options.abandon?.aborted ?? false;
  }

  /** Closes the kept-alive connections; the next send opens new ones. */
  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = null;
    await agent?.close();
  }

  private headers(notification: OutgoingNotification, webhook: Receiver, at: Date): Record<string, string> {
    const opened = this.secretsOf(webhook);
    const secrets = [opened.current];
    const previousUntil = webhook.previous_secret_expires_at;
    if (
      opened.previousSealed !== null &&
      previousUntil !== null &&
      Date.parse(previousUntil) > at.getTime()
    ) {
      opened.previous ??= this.options.masterKey.open(opened.previousSealed, `${webhook.id}:previous`);
      secrets.push(opened.previous);
    }
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...standardWebhookHeaders({
        id: notification.id,
        timestamp: Math.floor(at.getTime() / 1000),
        body: notification.payload,
        secrets,
      }),
      'x-signature': chaingatewaySignature(opened.current, notification.txid),
    };
  }

  private secretsOf(webhook: Receiver): OpenedSecrets {
    const known = this.opened.get(webhook.id);
    if (
      known !== undefined &&
      known.sealed === webhook.secret_sealed &&
      known.previousSealed === webhook.previous_secret_sealed
    ) {
      return known;
    }
    const opened: OpenedSecrets = {
      sealed: webhook.secret_sealed,
      current: this.options.masterKey.open(webhook.secret_sealed, webhook.id),
      previousSealed: webhook.previous_secret_sealed,
    };
    if (this.opened.size >= MAX_OPENED_SECRETS) this.opened.clear();
    this.opened.set(webhook.id, opened);
    return opened;
  }

  private dispatcher(): Agent {
    const { allowlist, timeoutMs, connectionsPerOrigin, lookup } = this.options;
    this.agent ??= guardedDispatcher(allowlist, {
      connectTimeoutMs: timeoutMs,
      connectionsPerOrigin,
      ...(lookup === undefined ? {} : { lookup }),
    });
    return this.agent;
  }
}

/** A 2xx is delivered; 410 gives up and disables; anything else retries if the webhook's policy allows. */
export function classify(
  notification: OutgoingNotification,
  webhook: Receiver,
  attempt: AttemptResult,
): Verdict {
  const status = attempt.status;
  if (status !== null && status >= 200 && status < 300) return { outcome: 'delivered' };
  // Standard Webhooks: 410 means the receiver is gone for good; stop sending to it.
  if (status === 410) return { outcome: 'failed', disableReason: 'the endpoint answered 410 Gone' };
  if (webhook.retry_policy === 'backoff') {
    const delay = nextBackoffDelayMs(notification.attempts + 1, attempt.retryAfter, attempt.finishedAt);
    if (delay !== null) {
      return { outcome: 'retry_scheduled', nextAttemptAt: new Date(attempt.finishedAt.getTime() + delay) };
    }
  }
  return { outcome: 'failed' };
}

/**
 * The first KEEP_BYTES of a response as text; reading stops quietly on error or past DRAIN_BYTES. Read
 * through its events: an async iterator cost a few objects and promises per answer, most answers empty.
 */
function readPrefix(body: Readable): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let seen = 0;
    let finished = false;
    // The listeners stay: an error after the end must still find one.
    const done = () => {
      if (finished) return;
      finished = true;
      // The status already decided the outcome; a body cut short is still worth keeping.
      resolve(cleanText(Buffer.concat(chunks).subarray(0, KEEP_BYTES).toString('utf8')));
    };
    const onData = (chunk: Buffer) => {
      if (kept < KEEP_BYTES) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      seen += chunk.length;
      if (seen > DRAIN_BYTES && !finished) {
        done();
        body.destroy(); // too much to drain: the connection goes with it
      }
    };
    body.on('data', onData);
    body.on('end', done);
    body.on('error', done);
    body.on('close', done);
  });
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
