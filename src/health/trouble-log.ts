import { NodeUnavailableError } from '../chains/node-client.ts';
import { type Logger, scrubString } from '../logger.ts';

/** Longest reason a warning or the readiness report quotes. */
const MAX_REASON = 200;

/** Default time between two summaries of a trouble that lasts. */
export const TROUBLE_SUMMARY_MS = 5 * 60_000;

/** The two levels it writes at; a request's logger will do as well as the process's. */
type TroubleLogger = Pick<Logger, 'warn' | 'info'>;

interface Trouble {
  since: number;
  /** Failures since the last line written about it. */
  failures: number;
  lastLine: number;
}

/**
 * Warnings about something that keeps failing (a node endpoint, the calls to a chain's nodes, a watcher),
 * written on state changes only: one line when it starts failing, one when it works again (how long it
 * failed), and while it lasts a summary every `summaryMs` (how many failures meanwhile, the last reason).
 * A dead node otherwise writes a line for every retry of every caller.
 */
export class TroubleLog {
  readonly #open = new Map<string, Trouble>();
  readonly #summaryMs: number;
  readonly #now: () => number;

  constructor(options: { summaryMs?: number; now?: () => number } = {}) {
    this.#summaryMs = options.summaryMs ?? TROUBLE_SUMMARY_MS;
    this.#now = options.now ?? Date.now;
  }

  /** `key` failed; `message` names it on the first line (e.g. `watcher step failed`). */
  failed(key: string, logger: TroubleLogger, fields: object, error: unknown, message: string): void {
    const now = this.#now();
    const trouble = this.#open.get(key);
    if (trouble === undefined) {
      this.#open.set(key, { since: now, failures: 0, lastLine: now });
      logger.warn({ ...fields, reason: shortReason(error), err: error }, message);
      return;
    }
    trouble.failures++;
    if (now - trouble.lastLine < this.#summaryMs) return;
    logger.warn(
      {
        ...fields,
        failingForSeconds: Math.round((now - trouble.since) / 1000),
        failuresSinceLastLine: trouble.failures,
        reason: shortReason(error),
      },
      `${message}: still failing`,
    );
    trouble.failures = 0;
    trouble.lastLine = now;
  }

  /** `key` worked: a line only if it was failing. */
  recovered(key: string, logger: TroubleLogger, fields: object, message: string): void {
    const trouble = this.#open.get(key);
    if (trouble === undefined) return;
    this.#open.delete(key);
    logger.info(
      {
        ...fields,
        failedForSeconds: Math.round((this.#now() - trouble.since) / 1000),
        failuresSinceLastLine: trouble.failures,
      },
      message,
    );
  }

  isFailing(key: string): boolean {
    return this.#open.has(key);
  }
}

/** The one key every caller of a chain's nodes shares, so a dead node is one trouble and not one per caller. */
export function nodeCallsKey(chain: string, network: string): string {
  return `node calls ${chain} ${network}`;
}

/** What went wrong, in a line: the last attempt of a node call, scrubbed and cut short. */
export function shortReason(error: unknown): string {
  const text =
    error instanceof NodeUnavailableError
      ? (error.reasons.at(-1) ?? error.message)
      : error instanceof Error
        ? error.message
        : String(error);
  const flat = scrubString(text.replace(/\s+/g, ' ').trim());
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON)}…` : flat;
}
