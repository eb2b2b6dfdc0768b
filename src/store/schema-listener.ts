import { sql } from 'kysely';
import type { Logger } from '../logger.ts';
import { PgListener } from './pg-listener.ts';
import type { Store } from './store.ts';

/**
 * A listener (not yet started) for the NOTIFYs on `channel` of writers on this store's schema: their
 * payload is their `current_schema()`, so another gateway or test on the same database is let pass.
 * `onChange` runs for each of them and at every (re)connection, for what was announced meanwhile.
 * Rejects when the schema cannot be read.
 */
export async function schemaListener(options: {
  store: Store;
  /** The store's DATABASE_URL: the listener opens a connection of its own there. */
  databaseUrl: string;
  channel: string;
  onChange: () => void;
  logger: Logger;
}): Promise<PgListener> {
  const { store, databaseUrl, channel, onChange, logger } = options;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db);
  const schema = rows[0]?.schema ?? null;
  return new PgListener({
    connectionString: databaseUrl,
    ...(store.schema === undefined ? {} : { pgSchema: store.schema }),
    channel,
    onNotification: (payload) => {
      if (payload === schema) onChange();
    },
    onConnected: onChange,
    logger,
  });
}
