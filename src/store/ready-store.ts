import { syncPlans } from '../accounts/plans.ts';
import type { Config } from '../config.ts';
import { type Migrations, sharedMigrations } from './migrations/index.ts';
import {
  assertReachable,
  haveRun,
  migrateToLatest,
  openStore,
  type Store,
  type StoreOptions,
  unreachable,
} from './store.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/**
 * The migrations a process runs: the whole list (the gateway), or a loader of it that is called only when
 * a shared migration has not run yet (the admin CLI). The families' migrations come with their modules,
 * whose chain code takes seconds to load; the CLI touches none of their tables, and the gateway makes
 * any of them still missing when it starts.
 */
export type MigrationsToRun = Migrations | (() => Promise<Migrations>);

/**
 * The database as every process needs it: open, answering, migrated to the latest schema, with the
 * configured plans in it. The gateway builds its context on it; the admin CLI needs nothing more.
 */
export async function openReadyStore(
  config: Pick<Config, 'databaseUrl' | 'plans'>,
  migrations: MigrationsToRun,
  options: StoreOptions = {},
): Promise<Store> {
  const store = await openStore(config.databaseUrl, options);
  try {
    await assertReachable(store, config.databaseUrl);
    if (typeof migrations !== 'function') await migrateToLatest(store, migrations);
    else if (!(await haveRun(store, sharedMigrations))) await migrateToLatest(store, await migrations());
    await syncPlans(store.db, config.plans);
    return store;
  } catch (error) {
    await store.close();
    // A database that goes away after the first round trip (restarting, say) is unreachable too.
    throw isDatabaseUnavailable(error) ? unreachable(config.databaseUrl, error) : error;
  }
}
