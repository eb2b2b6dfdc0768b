import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { WebhookSender } from '../webhooks/delivery-attempt.ts';
import { nextBackoffDelayMs } from '../webhooks/retry-schedule.ts';

/** The tables whose rows end with a callback: sponsored jobs and sweeps. */
export type CallbackTable = 'sponsor_jobs' | 'sweeps';

/** A callback that is due: where it goes, what it says, and its sealed secret. */
interface DueCallback {
  id: string;
  url: string;
  secretSealed: string;
  attempts: number;
  txid: string;
}

/** Callbacks looked at per pass. */
const BATCH = 20;
/**
 * How long a pass holds a callback it is sending: longer than a request may take. A pass that dies with
 * it leaves it due again once this is over.
 */
const SENDING_MS = 60_000;

/**
 * The signed POST to a job's or a sweep's `callback_url` once it ends, sent as webhooks are (the Standard
 * Webhooks headers under the secret given with the job, through the URL guard) and tried again on the
 * webhooks' backoff schedule until the receiver answers 2xx or the schedule is used up.
 */
export class CallbackDeliveries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly sender: WebhookSender,
    /** The body of a row's callback: what the API answers for it. */
    private readonly bodyOf: (table: CallbackTable, id: string) => Promise<unknown>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Sends every callback that is due and this pass takes (another pass or instance that read it too
   * finds it taken); answers how many were tried.
   */
  async deliverDue(): Promise<number> {
    let tried = 0;
    for (const table of ['sponsor_jobs', 'sweeps'] as const) {
      for (const due of await this.due(table)) {
        if (this.sender.abandoned) return tried;
        if (!(await this.take(table, due))) continue;
        await this.attempt(table, due);
        tried++;
      }
    }
    return tried;
  }

  /** Moves a due callback's time past its sending, if no other pass did first: then it is this pass's. */
  private async take(table: CallbackTable, due: DueCallback): Promise<boolean> {
    const now = this.now();
    const taken = await this.db
      .updateTable(table)
      .set({ callback_next_at: new Date(now.getTime() + SENDING_MS).toISOString() })
      .where('id', '=', due.id)
      .where('callback_state', '=', 'due')
      .where('callback_attempts', '=', due.attempts)
      .where('callback_next_at', '<=', now.toISOString())
      .executeTakeFirst();
    return taken.numUpdatedRows === 1n;
  }

  private async due(table: CallbackTable): Promise<DueCallback[]> {
    const rows = await this.db
      .selectFrom(table)
      .select(['id', 'callback_url', 'callback_secret_sealed', 'callback_attempts'])
      .where('callback_state', '=', 'due')
      .where('callback_next_at', '<=', this.now().toISOString())
      .orderBy('callback_next_at')
      .limit(BATCH)
      .execute();
    const txids = table === 'sponsor_jobs' ? await this.txids(rows.map((r) => r.id)) : new Map();
    return rows.flatMap((row) =>
      row.callback_url === null || row.callback_secret_sealed === null
        ? []
        : [
            {
              id: row.id,
              url: row.callback_url,
              secretSealed: row.callback_secret_sealed,
              attempts: row.callback_attempts,
              txid: txids.get(row.id) ?? '',
            },
          ],
    );
  }

  /** The txids of jobs (Chaingateway's `X-Signature` signs a callback's txid). */
  private async txids(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('sponsor_jobs')
      .select(['id', 'txid'])
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((r) => [r.id, r.txid ?? '']));
  }

  private async attempt(table: CallbackTable, due: DueCallback): Promise<void> {
    const payload = JSON.stringify(await this.bodyOf(table, due.id));
    const result = await this.sender.send(
      { id: `msg_${due.id.replaceAll('-', '')}`, payload, txid: due.txid, attempts: due.attempts },
      {
        id: callbackSecretContext(due.id),
        url: due.url,
        secret_sealed: due.secretSealed,
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        retry_policy: 'backoff',
      },
    );
    // Cut off by the shutdown before the receiver answered: it is due again once its sending time is over.
    if (result.status === null && this.sender.abandoned) return;
    const attempts = due.attempts + 1;
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const delay = delivered ? null : nextBackoffDelayMs(attempts, result.retryAfter, this.now());
    const error = delivered ? null : (result.error ?? `HTTP ${result.status}`);
    await this.db
      .updateTable(table)
      .set({
        callback_attempts: attempts,
        callback_state: delivered ? 'delivered' : delay === null ? 'failed' : 'due',
        callback_next_at: delay === null ? null : new Date(this.now().getTime() + delay).toISOString(),
        callback_error: error,
      })
      .where('id', '=', due.id)
      .execute();
  }
}

/** What a callback's secret is sealed under (the master key's context), for a job or a sweep id. */
export function callbackSecretContext(id: string): string {
  return `callback:${id}`;
}

/** A row's callback becomes due when it ends, where it has a callback URL. */
export const callbackDue = sql<string | null>`case when callback_url is null then null else 'due' end`;
