import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { RequestMeter } from '../../src/accounts/request-meter.ts';
import { UserDirectory } from '../../src/accounts/users.ts';
import { loadConfig } from '../../src/config.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase } from '../helpers/gateway.ts';
import { openMigratedStore } from '../helpers/test-store.ts';

const database = freshDatabase();
let store: Store;
let users: UserDirectory;
const PERIOD = '2026-11-01T00:00:00.000Z';

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

const stored = async (userId: string) =>
  (
    await store.db
      .selectFrom('quota_usage')
      .select('requests')
      .where('user_id', '=', userId)
      .where('period_start', '=', PERIOD)
      .executeTakeFirst()
  )?.requests ?? 0;

const newUser = async () =>
  (await users.createUser(`meter-${Math.random().toString(36).slice(2)}@example.com`)).id;

describe('the requests meter', () => {
  it('admits exactly the limit among concurrent takes, with no write until the batch', async () => {
    const meter = new RequestMeter(store.db, 60_000);
    const userId = await newUser();
    const taken = await Promise.all(Array.from({ length: 30 }, () => meter.take(userId, PERIOD, 10)));
    expect(taken.filter(Boolean)).toHaveLength(10);
    expect(await stored(userId)).toBe(0);
    expect(meter.unwritten(userId, PERIOD)).toBe(10);
    await meter.flush();
    expect(await stored(userId)).toBe(10);
    expect(meter.unwritten(userId, PERIOD)).toBe(0);
    expect(await meter.take(userId, PERIOD, 10)).toBe(false);
  });

  it('writes given-back units and never takes the stored count below zero', async () => {
    const meter = new RequestMeter(store.db, 60_000);
    const userId = await newUser();
    for (let i = 0; i < 3; i++) await meter.take(userId, PERIOD, null);
    meter.giveBack(userId, PERIOD);
    await meter.flush();
    expect(await stored(userId)).toBe(2);
    for (let i = 0; i < 5; i++) meter.giveBack(userId, PERIOD);
    await meter.flush();
    expect(await stored(userId)).toBe(0);
  });

  it('keeps counting what is taken while a batch is being written', async () => {
    const meter = new RequestMeter(store.db, 60_000);
    const userId = await newUser();
    for (let i = 0; i < 5; i++) await meter.take(userId, PERIOD, 8);
    const writing = meter.flush();
    const during = await Promise.all(Array.from({ length: 10 }, () => meter.take(userId, PERIOD, 8)));
    await writing;
    await meter.flush();
    expect(during.filter(Boolean)).toHaveLength(3);
    expect(await stored(userId)).toBe(8);
  });

  it('writes on its own within the interval, and a second instance reads what the first wrote', async () => {
    const first = new RequestMeter(store.db, 20);
    const userId = await newUser();
    for (let i = 0; i < 4; i++) await first.take(userId, PERIOD, 5);
    await expect.poll(() => stored(userId)).toBe(4);
    const second = new RequestMeter(store.db, 20);
    expect(await second.take(userId, PERIOD, 5)).toBe(true);
    expect(await second.take(userId, PERIOD, 5)).toBe(false);
    await second.flush();
    expect(await stored(userId)).toBe(5);
  });

  it('loses at most the unwritten batch when the process dies before writing it', async () => {
    const meter = new RequestMeter(store.db, 60_000);
    const userId = await newUser();
    for (let i = 0; i < 3; i++) await meter.take(userId, PERIOD, null);
    await meter.flush();
    for (let i = 0; i < 2; i++) await meter.take(userId, PERIOD, null);
    // No flush: as after kill -9. What was written stays; the two units of the last interval are lost.
    expect(await stored(userId)).toBe(3);
  });
});

describe('the requests meter after a failed write', () => {
  it('keeps the units and writes them, and everyone else’s, at the next flush', async () => {
    const meter = new RequestMeter(store.db, 60_000);
    const userId = await newUser();
    // A user the database does not know: its write fails (foreign key), as a write meeting an outage does.
    const unknown = '00000000-0000-4000-8000-000000000000';
    await meter.take(unknown, PERIOD, null);
    await meter.take(userId, PERIOD, null);
    await expect(meter.flush()).rejects.toThrow();
    expect(meter.unwritten(unknown, PERIOD)).toBe(1);
    // The others' units were written all the same.
    expect(await stored(userId)).toBe(1);
    meter.giveBack(unknown, PERIOD);
    for (let i = 0; i < 2; i++) await meter.take(userId, PERIOD, null);
    await meter.flush();
    expect(await stored(userId)).toBe(3);
  });
});
