import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';

/** The Postgres channel account changes are announced on; the payload is the schema of the changed rows. */
export const ACCOUNT_CHANGES_CHANNEL = 'switchyard_accounts';

/**
 * Tells the identity caches that who may call the API changed: a token revoked, a plan or a subscription
 * changed, sessions ended. In this process at once; on Postgres also by a NOTIFY that every instance's
 * listener (account-change-listener.ts) passes on within moments. SQLite has no such channel: another
 * process (the CLI) is heard of when its caches' entries age out (IDENTITY_CACHE_MS).
 */
export class AccountChanges {
  readonly #dialect: Dialect | null;
  readonly #listeners = new Set<() => void>();

  /** `dialect` null: this process only (a store of its own in a test or a tool). */
  constructor(dialect: Dialect | null) {
    this.#dialect = dialect;
  }

  /** After the change committed: this process's caches forget, then every other instance's. */
  async announce(db: Kysely<Database>): Promise<void> {
    this.changedElsewhere();
    if (this.#dialect !== 'postgres') return;
    await sql`select pg_notify(${ACCOUNT_CHANGES_CHANNEL}, current_schema())`.execute(db);
  }

  /** Another instance announced a change (or one may have been missed): this process's caches forget. */
  changedElsewhere(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` at each change; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
