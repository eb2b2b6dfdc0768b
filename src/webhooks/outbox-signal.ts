import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';

/** The Postgres channel outbox commits are announced on; the payload is the schema the rows are in. */
export const OUTBOX_CHANNEL = 'switchyard_outbox';

/**
 * Tells deliverers that notification rows are due, so they claim them at once instead of at their next
 * poll. In this process, a call after the commit; on Postgres also a NOTIFY inside the writing transaction,
 * which the server delivers only if and when it commits, to the deliverers of every instance
 * (outbox-listener.ts). SQLite has no such channel: other processes find the rows by polling.
 */
export class OutboxSignal {
  readonly #dialect: Dialect;
  readonly #listeners = new Set<() => void>();

  constructor(dialect: Dialect) {
    this.#dialect = dialect;
  }

  /**
   * Inside the transaction that writes or re-queues rows (or after a single autocommitted statement):
   * on Postgres, the NOTIFY that fires on commit.
   */
  async announce(db: Kysely<Database>): Promise<void> {
    if (this.#dialect !== 'postgres') return;
    await sql`select pg_notify(${OUTBOX_CHANNEL}, current_schema())`.execute(db);
  }

  /** After the commit: wakes the deliverers of this process. */
  committed(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` at each commit in this process; returns what stops it. */
  onCommit(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
