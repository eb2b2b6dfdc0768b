import type { Logger } from '../logger.ts';
import type { PgListener } from '../store/pg-listener.ts';
import { schemaListener } from '../store/schema-listener.ts';
import type { Store } from '../store/store.ts';
import { ACCOUNT_CHANGES_CHANNEL, type AccountChanges } from './account-changes.ts';

/**
 * On Postgres, hears the account changes other instances (and the CLI) announce, so a revoked token is
 * refused by every instance within moments rather than when its cached identity ages out. After each
 * (re)connection the caches are emptied once, for what was announced while the connection was down.
 * Announcements of another schema on the same database (another gateway, another test) are let pass.
 */
export class AccountChangeListener {
  #listener: PgListener | null = null;
  #starting: Promise<void> | null = null;
  #stopped = false;

  constructor(
    private readonly options: {
      changes: AccountChanges;
      store: Store;
      databaseUrl: string;
      logger: Logger;
    },
  ) {}

  start(): void {
    if (this.options.store.dialect === 'postgres') this.#starting = this.#listen();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    await this.#listener?.stop();
    this.#listener = null;
  }

  async #listen(): Promise<void> {
    const { changes, store, databaseUrl, logger } = this.options;
    let listener: PgListener;
    try {
      const onChange = () => changes.changedElsewhere();
      listener = await schemaListener({
        store,
        databaseUrl,
        channel: ACCOUNT_CHANGES_CHANNEL,
        onChange,
        logger,
      });
    } catch (error) {
      logger.warn({ err: error }, 'account change listener not started; cached identities age out in 1 s');
      return;
    }
    if (this.#stopped) return;
    this.#listener = listener;
    listener.start();
  }
}
