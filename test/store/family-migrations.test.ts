// The families' own tables migrate from their folders, among the shared migrations by name: a database
// migrated when every migration was listed in src/store/ is the same database to the list assembled now.
import { Migrator } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import { type Migrations, migrationList, sharedMigrations } from '../../src/store/migrations/index.ts';
import { openReadyStore } from '../../src/store/ready-store.ts';
import { haveRun, migrateToLatest, openStore, type Store } from '../../src/store/store.ts';
import { freshDatabase, type TestDatabase, testDatabase } from '../helpers/gateway.ts';

/** Every name released while src/store/migrations/index.ts listed them all, in its order. */
const RELEASED = [
  '0001_foundation',
  '0002_custody',
  '0003_evm_nonces',
  '0004_webhooks',
  '0005_password_throttle',
  '0006_user_numbers',
  '0007_hd_wallets',
  '0008_notify_pending',
  '0009_dashboard_sessions',
  '0010_notification_reinclusion',
  '0011_idempotency_keys',
  '0012_plan_rates',
  '0013_unsettled_sends',
  '0014_bitcoin_coin_reservations',
  '0015_evm_mined_nonce',
  '0016_bitcoin_reservations_by_spender',
  '0017_sponsorship',
  '0018_request_days',
];

const databases: TestDatabase[] = [];
afterAll(() => Promise.all(databases.map((database) => database.drop())));

async function fresh(): Promise<{ database: TestDatabase; store: Store }> {
  const database = freshDatabase();
  databases.push(database);
  const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
  return { database, store: await openStore(loadConfig(database.env).databaseUrl, options) };
}

const migratorOf = (store: Store, migrations: Migrations) =>
  new Migrator({
    db: store.db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    ...(store.schema === undefined ? {} : { migrationTableSchema: store.schema }),
  });

describe(`family migrations on ${testDatabase()}`, () => {
  it('keep every released name, in the order they ran', () => {
    expect(Object.keys(GATEWAY_MIGRATIONS).slice(0, RELEASED.length)).toEqual(RELEASED);
  });

  it('recognise a database the one shared list migrated: none of those runs again', async () => {
    const { store } = await fresh();
    try {
      // The list as it was: one record of every migration, family tables and all.
      const before = Object.fromEntries(RELEASED.map((name) => [name, GATEWAY_MIGRATIONS[name]!]));
      const first = await migratorOf(store, before).migrateToLatest();
      expect(first.error).toBeUndefined();
      expect(first.results?.map((r) => r.migrationName)).toEqual(RELEASED);

      expect(await haveRun(store, before)).toBe(true);
      const again = await migratorOf(store, GATEWAY_MIGRATIONS).migrateToLatest();
      expect(again.error).toBeUndefined();
      // Only what was added since runs.
      const added = Object.keys(GATEWAY_MIGRATIONS).slice(RELEASED.length);
      expect(again.results?.map((r) => r.migrationName)).toEqual(added);
      await migrateToLatest(store, GATEWAY_MIGRATIONS);
    } finally {
      await store.close();
    }
  });

  it('refuse a name two sets both claim', () => {
    expect(() =>
      migrationList(sharedMigrations, { '0001_foundation': sharedMigrations['0001_foundation']! }),
    ).toThrow('migration 0001_foundation is listed twice');
  });

  it('are loaded by the admin CLI only when a shared migration has not run', async () => {
    const { database, store } = await fresh();
    await store.close();
    const config = loadConfig(database.env);
    const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
    let loads = 0;
    const load = async () => {
      loads++;
      return GATEWAY_MIGRATIONS;
    };
    const first = await openReadyStore(config, load, options);
    try {
      expect(loads).toBe(1);
      expect(await haveRun(first, GATEWAY_MIGRATIONS)).toBe(true);
    } finally {
      await first.close();
    }
    const second = await openReadyStore(config, load, options);
    await second.close();
    expect(loads).toBe(1);
  });
});
