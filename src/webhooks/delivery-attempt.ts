import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
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

/** How a POST ended: the receiver's answer, or why there was none. */
type PostAnswer = Pick<AttemptResult, 'status' | 'body' | 'retryAfter'> | { error: unknown };

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
  /** Each webhook URL seen, as its origin and path. */
  private readonly targets = new Map<string, { origin: string; path: string }>();
  /** The sends waiting on their receiver, each as how it is cut off: a shutdown cuts them all. */
  private readonly waiting = new Set<(reason: Error) => void>();

  constructor(private readonly options: WebhookSenderOptions) {
    const { abandon } = options;
    abandon?.addEventListener(
      'abort',
      () => {
        for (const cut of this.waiting) cut(abandonedError(abandon.reason));
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
    const answer = await this.post(webhook.url, headers, notification.payload);
    return 'error' in answer ? result({ error: describeError(answer.error, timeoutMs) }) : result(answer);
  }

  /**
   * The POST through the dispatcher's own handler interface: `request()` made a response stream, an abort
   * signal and their listeners for every send, most of a delivery's HTTP cost. One timer per send cuts it
   * off at the timeout; a shutdown's abandon cuts off every send waiting.
   */
  private post(url: string, headers: Record<string, string>, body: string): Promise<PostAnswer> {
    const { timeoutMs } = this.options;
    const { origin, path } = this.targetOf(url);
    return new Promise((resolve) => {
      let controller: Dispatcher.DispatchController | null = null;
      let status: number | null = null;
      let retryAfter: string | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      let seen = 0;
      let ended = false;
      const end = (answer: PostAnswer) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        this.waiting.delete(cut);
        resolve(answer);
      };
      const answered = () => end({ status, body: keptText(chunks), retryAfter });
      const cut = (reason: Error) => {
        if (controller !== null) controller.abort(reason);
        else end({ error: reason });
      };
      const timer = setTimeout(() => cut(new WebhookTimeout(timeoutMs)), timeoutMs);
      this.waiting.add(cut);
      if (this.abandoned) cut(abandonedError(this.options.abandon?.reason));
      if (ended) return;
      try {
        this.dispatcher().dispatch(
          { origin, path, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
          {
            onRequestStart: (started) => {
              controller = started;
              if (ended) started.abort(new WebhookTimeout(timeoutMs));
            },
            onResponseStart: (_, statusCode, responseHeaders) => {
              status = statusCode;
              const value = responseHeaders['retry-after'];
              retryAfter = Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
            },
            onResponseData: (response, chunk) => {
              if (kept < KEEP_BYTES) {
                chunks.push(chunk);
                kept += chunk.length;
              }
              seen += chunk.length;
              // Too much to drain: the status already decided the outcome, and the connection goes.
              if (seen > DRAIN_BYTES) {
                answered();
                response.abort(new Error('answer too long'));
              }
            },
            onResponseEnd: answered,
            onResponseError: (_, error) => {
              // An answer cut short after its status is still the receiver's answer.
              if (status !== null) answered();
              else end({ error });
            },
          },
        );
      } catch (error) {
        end({ error });
      }
    });
  }

  private targetOf(url: string): { origin: string; path: string } {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= MAX_OPENED_SECRETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
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

/** The first KEEP_BYTES of an answer as text. */
function keptText(chunks: Buffer[]): string {
  return cleanText(Buffer.concat(chunks).subarray(0, KEEP_BYTES).toString('utf8'));
}

/** A send cut off at the timeout. */
class WebhookTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
  }
}

/** A send cut off by a shutdown: the caller sees `abandoned` and records nothing. */
function abandonedError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error('abandoned at shutdown');
}

function describeError(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: unknown } | null)?.code;
  const timeoutCodes = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'];
  if (error instanceof WebhookTimeout || (typeof code === 'string' && timeoutCodes.includes(code)))
    return `timed out after ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'WEBHOOK_URL_REFUSED') return cleanText(`refused: ${message}`);
  return cleanText(typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message);
}

/** Postgres text cannot hold NUL, and a stored text field stays small. */
function cleanText(text: string): string {
  return text.replaceAll('\u0000', '').slice(0, KEEP_BYTES);
}
