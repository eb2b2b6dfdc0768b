// The reservations of Bitcoin coins (src/chains/bitcoin/coin-reservations.ts) on the test database, with a
// clock of the test's own: a held coin is not offered to another send until its lease ends or it is given
// back, a broadcast keeps it held longer, and sends racing from two stores on one Postgres schema (two
// gateway instances) never reserve the same coin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BitcoinCoinReservationDatabase,
  BROADCAST_LEASE_MS,
  type CoinRef,
  CoinReservations,
  PENDING_LEASE_MS,
} from '../../src/chains/bitcoin/coin-reservations.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase } from '../helpers/gateway.ts';
import { openMigratedStore, openTestStore } from '../helpers/test-store.ts';

const database = freshDatabase();
let store: Store;
/** A second store on the same database: another gateway instance (Postgres). */
let other: Store;
let clock = new Date('2026-01-01T00:00:00.000Z');
const now = () => clock;
const later = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

beforeAll(async () => {
  store = await openMigratedStore(database);
  other = await openTestStore(database);
});

afterAll(async () => {
  await other?.close();
  await store?.close();
  await database.drop();
});

let made = 0;
/** `count` fresh coins of one fresh address. */
function coinsOf(count: number): CoinRef[] {
  made += 1;
  const address = `bc1qtest${made}`;
  const txid = made.toString(16).padStart(64, '0');
  return Array.from({ length: count }, (_, vout) => ({ txid, vout, address }));
}

/** Takes the first coin offered; "too little" when none is. */
const first = (free: CoinRef[]) => {
  const coin = free[0];
  if (coin === undefined) throw new Error('too little');
  return { inputs: [coin] };
};

const reserveOne = (reservations: CoinReservations, coins: CoinRef[]) =>
  reservations.reserve('mainnet', coins, first);

describe('Bitcoin coin reservations', () => {
  it('a held coin is offered to no other send until the hold is given back', async () => {
    const reservations = new CoinReservations(store, now);
    const coins = coinsOf(2);
    const { chosen, hold } = await reserveOne(reservations, coins);
    expect(chosen.inputs).toEqual([coins[0]]);
    expect(await reservations.free('mainnet', coins)).toEqual([coins[1]]);
    // The same coins on another network are other coins.
    expect(await reservations.free('testnet', coins)).toEqual(coins);
    await hold.release();
    expect(await reservations.free('mainnet', coins)).toEqual(coins);
  });

  it('a hold left by a crash ends with its lease; the send that lost its coin does not broadcast', async () => {
    const reservations = new CoinReservations(store, now);
    const coins = coinsOf(1);
    const crashed = await reserveOne(reservations, coins);
    later(PENDING_LEASE_MS - 1);
    await expect(reserveOne(reservations, coins)).rejects.toThrow('too little');
    later(1);
    const next = await reserveOne(reservations, coins);
    expect(next.chosen.inputs).toEqual(coins);
    expect(await crashed.hold.forBroadcast()).toBe(false);
    expect(await next.hold.forBroadcast()).toBe(true);
    await next.hold.release();
  });

  it('a lapsed hold nobody took is renewed for the broadcast', async () => {
    const reservations = new CoinReservations(store, now);
    const coins = coinsOf(1);
    const slow = await reserveOne(reservations, coins);
    later(PENDING_LEASE_MS);
    // A read forgets the lapsed row on the way.
    expect(await reservations.free('mainnet', coins)).toEqual(coins);
    expect(await slow.hold.forBroadcast()).toBe(true);
    expect(await reservations.free('mainnet', coins)).toEqual([]);
    await slow.hold.release();
  });

  it('a broadcast holds the coins for the broadcast lease, naming its transaction', async () => {
    const reservations = new CoinReservations(store, now);
    const coins = coinsOf(1);
    const { hold } = await reserveOne(reservations, coins);
    expect(await hold.forBroadcast()).toBe(true);
    await hold.broadcast('ab'.repeat(32));
    const row = await store.db
      .withTables<BitcoinCoinReservationDatabase>()
      .selectFrom('bitcoin_coin_reservations')
      .select(['spending_txid', 'address'])
      .where('holder', '=', hold.holder)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ spending_txid: 'ab'.repeat(32), address: coins[0]!.address });
    later(BROADCAST_LEASE_MS - 1);
    expect(await reservations.free('mainnet', coins)).toEqual([]);
    later(1);
    expect(await reservations.free('mainnet', coins)).toEqual(coins);
  });

  it('ten sends racing from two gateway instances reserve each of five coins once', async () => {
    // Two connections of one process cannot share an SQLite file this way (a second writer's BEGIN blocks
    // the thread the first needs to commit): there the instances share the store's connection, and two
    // gateway processes wait for each other's lock instead.
    const second = store.dialect === 'postgres' ? other : store;
    const instances = [new CoinReservations(store, now), new CoinReservations(second, now)];
    const coins = coinsOf(5);
    // Each racer chooses the first free coin, as a send chooses the largest: all want the same one. On
    // Postgres they take turns per address, so each sees what the ones before it reserved and none
    // loses its coin to another (no 503 after lost rounds); SQLite runs the transactions one after another.
    const reads: number[] = [];
    const racers = Array.from({ length: 10 }, (_, i) =>
      instances[i % 2]!.reserve('mainnet', coins, async (free) => {
        reads.push(free.length);
        // A slow choice: a racer without its turn would read the same free coins meanwhile.
        await sleep(20);
        return first(free);
      }),
    );
    const results = await Promise.allSettled(racers);
    const won = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const lost = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(won).toHaveLength(5);
    expect(new Set(won.map((result) => result.chosen.inputs[0]!.vout)).size).toBe(5);
    expect(lost.map((error) => String(error))).toEqual(Array(5).fill('Error: too little'));
    // Every racer read once, after the one before it had reserved: 5 free, then 4, ... then none.
    expect(reads).toEqual([5, 4, 3, 2, 1, 0, 0, 0, 0, 0]);
    const rows = await store.db
      .withTables<BitcoinCoinReservationDatabase>()
      .selectFrom('bitcoin_coin_reservations')
      .select(['vout', 'holder'])
      .where('txid', '=', coins[0]!.txid)
      .execute();
    expect(rows.map((row) => row.vout).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(new Set(rows.map((row) => row.holder)).size).toBe(5);
  });

  it('names the transactions it broadcast with the addresses they spent from, while their lease lasts', async () => {
    const reservations = new CoinReservations(store, now);
    const coins = coinsOf(2);
    const { hold } = await reservations.reserve('mainnet', coins, (free) => ({ inputs: free }));
    const txid = 'cd'.repeat(32);
    const unknown = 'ef'.repeat(32);
    // Chosen, not yet broadcast: not a transaction of this gateway's yet.
    expect(await reservations.spentBy('mainnet', [txid, unknown])).toEqual(new Map());
    expect(await hold.forBroadcast()).toBe(true);
    await hold.broadcast(txid);
    const address = coins[0]!.address;
    expect(await reservations.spentBy('mainnet', [txid, unknown, txid])).toEqual(
      new Map([[txid, [address, address]]]),
    );
    expect(await reservations.spentBy('testnet', [txid])).toEqual(new Map());
    later(BROADCAST_LEASE_MS);
    expect(await reservations.spentBy('mainnet', [txid])).toEqual(new Map());
    // The lapsed rows go with the next read, as the other tests leave none.
    expect(await reservations.free('mainnet', coins)).toEqual(coins);
  });
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
