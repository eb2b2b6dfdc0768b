import { afterAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { loadConfig } from '../../src/config.ts';
import { migrateToLatest, openStore, pingStore } from '../../src/store/store.ts';
import { freshDatabase, testDatabase } from '../helpers/gateway.ts';

const database = freshDatabase();
afterAll(() => database.drop());

describe(`store on ${testDatabase()}`, () => {
  it('applies the migrations once and again without change, then serves queries', async () => {
    const config = loadConfig(database.env);
    const options = database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema };
    const store = await openStore(config.databaseUrl, options);
    try {
      expect(store.dialect).toBe(testDatabase());
      await migrateToLatest(store);
      await migrateToLatest(store);
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
    await migrateToLatest(first);
    await first.db
      .insertInto('users')
      .values({ id: 'u1', email: 'keep@example.com', created_at: 'now', number: 1 })
      .execute();
    await first.close();
    const second = await openStore(config.databaseUrl, options);
    await migrateToLatest(second);
    const row = await second.db.selectFrom('users').select('email').where('id', '=', 'u1').executeTakeFirst();
    await second.close();
    expect(row?.email).toBe('keep@example.com');
  });
});
