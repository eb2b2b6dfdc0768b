import type { Logger } from '../logger.ts';
import type { PgListener } from '../store/pg-listener.ts';
import { schemaListener } from '../store/schema-listener.ts';
import type { Store } from '../store/store.ts';
import { OUTBOX_CHANNEL, type OutboxSignal } from './outbox-signal.ts';

export interface OutboxListenerOptions {
  signal: OutboxSignal;
  store: Store;
  /** The store's DATABASE_URL: on Postgres the listener opens a connection of its own there. */
  databaseUrl: string;
  /** Called at every commit of outbox rows this process or (on Postgres) any instance makes. */
  wake: () => void;
  logger: Logger;
}

/**
 * Wakes a deliverer when outbox rows commit: those of this process through the in-process signal, and on
 * Postgres those of every instance through LISTEN on a dedicated connection (reconnected when it breaks;
 * after each reconnection the deliverer is woken once, for what was committed meanwhile). Notifications
 * of another schema on the same database (another gateway, another test) are let pass.
 */
export class OutboxListener {
  readonly #options: OutboxListenerOptions;
  #unsubscribe: (() => void) | null = null;
  #listener: PgListener | null = null;
  #starting: Promise<void> | null = null;

  constructor(options: OutboxListenerOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#unsubscribe !== null) return;
    const { signal, store, wake } = this.#options;
    this.#unsubscribe = signal.onCommit(wake);
    if (store.dialect === 'postgres') this.#starting = this.#listen();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    await this.#starting;
    this.#starting = null;
    await this.#listener?.stop();
    this.#listener = null;
  }

  async #listen(): Promise<void> {
    const { store, databaseUrl, wake, logger } = this.#options;
    let listener: PgListener;
    try {
      listener = await schemaListener({
        store,
        databaseUrl,
        channel: OUTBOX_CHANNEL,
        onChange: wake,
        logger,
      });
    } catch (error) {
      logger.warn({ err: error }, 'outbox listener not started; the deliverer polls');
      return;
    }
    if (this.#unsubscribe === null) return;
    this.#listener = listener;
    listener.start();
  }
}
