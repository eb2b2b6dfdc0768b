import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { UserDirectory } from '../../src/accounts/users.ts';
import { loadConfig } from '../../src/config.ts';
import { PreparedQuery } from '../../src/store/prepared-query.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase } from '../helpers/gateway.ts';
import { openMigratedStore } from '../helpers/test-store.ts';

const database = freshDatabase();
let store: Store;
let users: UserDirectory;

beforeAll(async () => {
  const config = loadConfig(database.env);
  store = await openMigratedStore(database);
  await syncPlans(store.db, config.plans);
  users = new UserDirectory(store.db, config.defaultPlan);
});
afterAll(async () => {
  await store?.close();
  await database.drop();
});

describe('a query compiled once', () => {
  it('answers each run for its own parameters', async () => {
    const alice = await users.createUser('alice-prepared@example.com');
    const bob = await users.createUser('bob-prepared@example.com');
    const byIdAndEmail = new PreparedQuery(
      store.db.selectFrom('users').select(['id', 'email']).where('id', '=', '').where('email', '=', ''),
    );
    expect(await byIdAndEmail.first(store.db, [alice.id, alice.email])).toEqual({
      id: alice.id,
      email: alice.email,
    });
    expect(await byIdAndEmail.first(store.db, [bob.id, bob.email])).toEqual({ id: bob.id, email: bob.email });
    expect(await byIdAndEmail.first(store.db, [alice.id, bob.email])).toBeUndefined();
  });

  it('refuses a run with the wrong number of parameters', async () => {
    const byId = new PreparedQuery(store.db.selectFrom('users').select('id').where('id', '=', ''));
    await expect(byId.first(store.db, [])).rejects.toThrow('takes 1 parameters');
  });
});
