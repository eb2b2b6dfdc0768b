/**
 * A connection of its own that LISTENs on one Postgres channel, kept open: when it breaks (the server
 * restarted, the network dropped it) a new one is made after a jittered, growing delay. Notifications sent
 * while it was down are lost, so `onConnected` runs after every (re)connection for the caller to look
 * for what it missed.
 */
import type pg from 'pg';
import { describeError } from '../describe-error.ts';
import type { Logger } from '../logger.ts';

export interface PgListenerOptions {
  connectionString: string;
  /** The schema the store works in (tests isolate themselves this way), as the store's pool sets it. */
  pgSchema?: string;
  channel: string;
  onNotification(payload: string | undefined): void;
  onConnected(): void;
  logger: Logger;
  /** Default 500. */
  backoffBaseMs?: number;
  /** Default 30000. */
  backoffMaxMs?: number;
}

export class PgListener {
  readonly #options: PgListenerOptions;
  #client: pg.Client | null = null;
  #stopped = true;
  #failures = 0;
  #retry: NodeJS.Timeout | null = null;
  #connecting: Promise<void> | null = null;

  constructor(options: PgListenerOptions) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.channel)) throw new Error(`bad channel ${options.channel}`);
    this.#options = options;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#connecting = this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    const client = this.#client;
    this.#client = null;
    // Ending it also ends a connection attempt under way.
    await client?.end().catch(() => undefined);
    await this.#connecting;
  }

  async #connect(): Promise<void> {
    const { connectionString, pgSchema, channel, logger } = this.#options;
    // Imported here, as the store imports it: only a gateway on Postgres loads the driver.
    const { Client } = (await import('pg')).default;
    const client = new Client({
      connectionString,
      // A connection dropped without a word (a firewall, a dead host) is found out within a minute.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
      // What pg_stat_activity shows for it.
      application_name: `switchyard listen ${channel}`,
      ...(pgSchema === undefined ? {} : { options: `-c search_path=${pgSchema}` }),
    });
    client.on('error', (error) => this.#lost(client, describeError(error)));
    client.on('end', () => this.#lost(client, 'connection ended'));
    client.on('notification', (message) => {
      if (message.channel === channel) this.#options.onNotification(message.payload);
    });
    this.#client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      this.#lost(client, describeError(error));
      return;
    }
    if (this.#stopped || client !== this.#client) return;
    if (this.#failures > 0) logger.info({ channel }, 'database listener connected again');
    this.#failures = 0;
    this.#options.onConnected();
  }

  #lost(client: pg.Client, reason: string): void {
    if (client !== this.#client || this.#stopped) return;
    this.#client = null;
    client.end().catch(() => undefined);
    this.#failures++;
    const fields = { channel: this.#options.channel, reason };
    if (this.#failures === 1)
      this.#options.logger.warn(fields, 'database listener lost; polling goes on, reconnecting');
    else this.#options.logger.debug(fields, 'database listener still down');
    const base = this.#options.backoffBaseMs ?? 500;
    const max = this.#options.backoffMaxMs ?? 30_000;
    const delay = Math.min(max, base * 2 ** Math.min(this.#failures - 1, 16)) * (0.5 + Math.random() / 2);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      if (!this.#stopped) this.#connecting = this.#connect();
    }, delay);
  }
}
