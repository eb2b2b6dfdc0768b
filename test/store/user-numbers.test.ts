import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { UserDirectory } from '../../src/accounts/users.ts';
import { loadConfig } from '../../src/config.ts';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import type { Database } from '../../src/store/schema.ts';
import { migrateToLatest, openStore, type Store } from '../../src/store/store.ts';
import { freshDatabase, type TestDatabase, testDatabase } from '../helpers/gateway.ts';

const databases: TestDatabase[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const database of databases) await database.drop();
});

async function open(database: TestDatabase, poolSize?: number): Promise<Store> {
  const store = await openStore(loadConfig(database.env).databaseUrl, {
    ...(database.pgSchema === undefined ? {} : { pgSchema: database.pgSchema }),
    ...(poolSize === undefined ? {} : { poolSize }),
  });
  stores.push(store);
  return store;
}

/** A database migrated up to (and including) `last`. */
async function migratedTo(last: string): Promise<{ database: TestDatabase; store: Store }> {
  const database = freshDatabase();
  databases.push(database);
  const store = await open(database);
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => GATEWAY_MIGRATIONS },
    ...(store.schema === undefined ? {} : { migrationTableSchema: store.schema }),
  });
  const { error } = await migrator.migrateTo(last);
  if (error !== undefined) throw error;
  return { database, store };
}

async function numbers(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db.selectFrom('users').select(['email', 'number']).execute();
  return Object.fromEntries(rows.map((r) => [r.email, r.number]));
}

describe(`user numbers on ${testDatabase()}`, () => {
  it('numbers the users that exist before the migration in creation order, then counts on from there', async () => {
    const { database, store } = await migratedTo('0005_password_throttle');
    // Inserted out of creation order; two created in the same millisecond are ordered by id.
    for (const [id, email, at] of [
      ['c', 'c@example.com', '2024-01-03T00:00:00.000Z'],
      ['a', 'a@example.com', '2024-01-01T00:00:00.000Z'],
      ['b2', 'b2@example.com', '2024-01-02T00:00:00.000Z'],
      ['b1', 'b1@example.com', '2024-01-02T00:00:00.000Z'],
    ]) {
      await sql`insert into users (id, email, created_at) values (${id}, ${email}, ${at})`.execute(store.db);
    }
    await migrateToLatest(store, GATEWAY_MIGRATIONS);
    expect(await numbers(store.db)).toEqual({
      'a@example.com': 1,
      'b1@example.com': 2,
      'b2@example.com': 3,
      'c@example.com': 4,
    });
    const config = loadConfig(database.env);
    await syncPlans(store.db, config.plans);
    const users = new UserDirectory(store.db, config.defaultPlan);
    const created = await users.createUser('d@example.com');
    expect(created.number).toBe(5);
    expect((await users.findByEmail('d@example.com'))?.number).toBe(5);
    // A duplicate is refused and takes no number.
    await expect(users.createUser('d@example.com')).rejects.toMatchObject({ status: 409 });
    expect((await users.createUser('e@example.com')).number).toBe(6);
  });

  it('gives concurrent creators distinct numbers 1..n without a gap or an error', async () => {
    const database = freshDatabase();
    databases.push(database);
    const first = await open(database);
    await migrateToLatest(first, GATEWAY_MIGRATIONS);
    // SQLite: one connection per process (better-sqlite3 blocks the event loop while it waits for a lock,
    // so a second connection in this process would wait on the first forever); Postgres: two pools.
    const second = testDatabase() === 'postgres' ? await open(database) : first;
    const config = loadConfig(database.env);
    await syncPlans(first.db, config.plans);
    const directories = [first, second].map((store) => new UserDirectory(store.db, config.defaultPlan));
    const count = 24;
    const created = await Promise.all(
      Array.from({ length: count }, (_, i) => directories[i % 2]!.createUser(`u${i}@example.com`)),
    );
    expect(created.map((u) => u.number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: count }, (_, i) => i + 1),
    );
    // The same email at once: one user, the others a clean 409 (not a constraint error).
    const same = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => directories[i % 2]!.createUser('same@example.com')),
    );
    expect(same.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of same) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 409 });
    expect((await directories[0]!.findByEmail('same@example.com'))?.number).toBe(count + 1);
  });
});
