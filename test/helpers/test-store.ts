// The store of a test database, opened as the gateway opens its own: the SQLite file, or the database's
// own Postgres schema.
import { loadConfig } from '../../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import { migrateToLatest, openStore, type Store } from '../../src/store/store.ts';
import type { TestDatabase } from './gateway.ts';

/** A connection (pool) to the test database, as another gateway instance would have; not migrated. */
export function openTestStore(database: TestDatabase): Promise<Store> {
  const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
  return openStore(loadConfig(database.env).databaseUrl, options);
}

/** A connection to the test database, migrated to the latest schema. */
export async function openMigratedStore(database: TestDatabase): Promise<Store> {
  const store = await openTestStore(database);
  await migrateToLatest(store, GATEWAY_MIGRATIONS);
  return store;
}
