import { syncPlans } from '../accounts/plans.ts';
import type { Config } from '../config.ts';
import { assertReachable, migrateToLatest, openStore, type Store, type StoreOptions } from './store.ts';

/**
 * The database as every process needs it: open, answering, migrated to the latest schema, with the
 * configured plans in it. The gateway builds its context on it; the admin CLI needs nothing more.
 */
export async function openReadyStore(
  config: Pick<Config, 'databaseUrl' | 'plans'>,
  options: StoreOptions = {},
): Promise<Store> {
  const store = await openStore(config.databaseUrl, options);
  try {
    await assertReachable(store, config.databaseUrl);
    await migrateToLatest(store);
    await syncPlans(store.db, config.plans);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}
