import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { loadConfig } from '../../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import { migrateToLatest, openStore, pingStore } from '../../src/store/store.ts';
import { freshDatabase, POSTGRES_URL, testDatabase } from '../helpers/gateway.ts';

const database = freshDatabase();
afterAll(() => database.drop());

describe(`store on ${testDatabase()}`, () => {
  it('applies the migrations once and again without change, then serves queries', async () => {
    const config = loadConfig(database.env);
    const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
    const store = await openStore(config.databaseUrl, options);
    try {
      expect(store.dialect).toBe(testDatabase());
      await migrateToLatest(store, GATEWAY_MIGRATIONS);
      await migrateToLatest(store, GATEWAY_MIGRATIONS);
      await syncPlans(store.db, config.plans);
      await syncPlans(
        store.db,
        config.plans.map((p) => ({ ...p, quotas: { ...p.quotas, requests: 7 } })),
      );
      const plans = await store.db
        .selectFrom('plans')
        .select(['name', 'quota_requests'])
        .orderBy('name')
        .execute();
      expect(plans).toHaveLength(4);
      expect(plans.every((p) => p.quota_requests === 7)).toBe(true);
      await pingStore(store);
    } finally {
      await store.close();
    }
  });

  it('keeps data across reopen', async () => {
    const config = loadConfig(database.env);
    const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
    const first = await openStore(config.databaseUrl, options);
    await migrateToLatest(first, GATEWAY_MIGRATIONS);
    await first.db
      .insertInto('users')
      .values({ id: 'u1', email: 'keep@example.com', created_at: 'now', number: 1 })
      .execute();
    await first.close();
    const second = await openStore(config.databaseUrl, options);
    await migrateToLatest(second, GATEWAY_MIGRATIONS);
    const row = await second.db.selectFrom('users').select('email').where('id', '=', 'u1').executeTakeFirst();
    await second.close();
    expect(row?.email).toBe('keep@example.com');
  });

  // Kysely finds its own tables by name in every schema: another schema's must not count as this one's.
  it.skipIf(testDatabase() === 'sqlite')(
    'migrates a schema chosen by search_path in DATABASE_URL beside another migrated schema',
    async () => {
      const migrated = await openStore(POSTGRES_URL, { pgSchema: database.pgSchema! });
      await migrateToLatest(migrated, GATEWAY_MIGRATIONS);
      await migrated.close();
      const other = freshDatabase();
      const store = await openStore(POSTGRES_URL, { pgSchema: other.pgSchema! });
      await store.close();
      const bySearchPath = await openStore(other.processEnv['DATABASE_URL']!);
      try {
        await migrateToLatest(bySearchPath, GATEWAY_MIGRATIONS);
        const users = await bySearchPath.db.selectFrom('users').select('id').execute();
        expect(users).toEqual([]);
      } finally {
        await bySearchPath.close();
        await other.drop();
      }
    },
  );

  // Test files (and other apps) create and drop schemas while a gateway starts: a schema dropped while
  // the migrator looks for its tables must not fail this schema's migration.
  it.skipIf(testDatabase() === 'sqlite')(
    'migrates while other schemas with tables are created and dropped beside it',
    async () => {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      let churning = true;
      const churn = (async () => {
        while (churning) {
          const name = `t_churn_${randomBytes(4).toString('hex')}`;
          await admin.query(
            `CREATE SCHEMA ${name}; CREATE TABLE ${name}.a (id serial primary key, b int, c text);` +
              ` CREATE TABLE ${name}.d (id serial primary key)`,
          );
          await admin.query(`DROP SCHEMA ${name} CASCADE`);
        }
      })();
      try {
        for (let i = 0; i < 15; i++) {
          const other = freshDatabase();
          const store = await openStore(POSTGRES_URL, { pgSchema: other.pgSchema! });
          try {
            await migrateToLatest(store, GATEWAY_MIGRATIONS);
          } finally {
            await store.close();
            await other.drop();
          }
        }
      } finally {
        churning = false;
        await churn;
        await admin.end();
      }
    },
    120_000,
  );
});
