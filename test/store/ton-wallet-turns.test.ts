// Turns at a TON wallet (src/chains/ton/wallet-turns.ts) on the test database: two instances (two stores
// on one Postgres schema; two turn keepers on one SQLite file) never send from one wallet at once, the
// newest seqno taken is shared, a turn left by a dead process frees itself when its lease ends, and a send
// waits for a held wallet at most its bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TonWalletTurnDatabase, WalletTurns } from '../../src/chains/ton/wallet-turns.ts';
import { ApiError } from '../../src/errors.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase } from '../helpers/gateway.ts';
import { openMigratedStore, openTestStore } from '../helpers/test-store.ts';

const database = freshDatabase();
let store: Store;
/** Another gateway instance: its own pool on Postgres, the same connection on SQLite. */
let other: Store;

beforeAll(async () => {
  store = await openMigratedStore(database);
  other = database.pgSchema === undefined ? store : await openTestStore(database);
});

afterAll(async () => {
  if (other !== store) await other?.close();
  await store?.close();
  await database.drop();
});

let made = 0;
const freshWallet = () => `0:${(++made).toString(16).padStart(64, '0')}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('turns at a TON wallet', () => {
  it('lets one send of all instances at a time run, each seeing the seqno the one before took', async () => {
    const wallet = freshWallet();
    const keepers = [new WalletTurns(store, { pollMs: 5 }), new WalletTurns(other, { pollMs: 5 })];
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        keepers[i % 2]!.take('mainnet', wallet, async (turn) => {
          running++;
          most = Math.max(most, running);
          seen.push(turn.taken);
          await pause(10);
          await turn.took(turn.taken + 1);
          running--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(seen).toEqual([-1, 0, 1, 2, 3, 4, 5, 6]);
    expect(await keepers[1]!.taken('mainnet', wallet)).toBe(7);
  });

  it('keeps the newest seqno taken, per network', async () => {
    const wallet = freshWallet();
    const turns = new WalletTurns(store);
    await turns.take('mainnet', wallet, async (turn) => {
      await turn.took(4);
      await turn.took(2);
      expect(turn.taken).toBe(4);
    });
    expect(await turns.taken('mainnet', wallet)).toBe(4);
    expect(await turns.taken('testnet', wallet)).toBe(-1);
  });

  it('frees a wallet held by a dead process once its lease ends, and not before', async () => {
    const wallet = freshWallet();
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const now = () => clock;
    const leaseMs = 30_000;
    await store.db
      .withTables<TonWalletTurnDatabase>()
      .insertInto('ton_wallet_turns')
      .values({
        network: 'mainnet',
        wallet,
        holder: 'a process that died',
        expires_at: new Date(clock + leaseMs).toISOString(),
        taken_seqno: 9,
      })
      .execute();
    const turns = new WalletTurns(other, { pollMs: 5, leaseMs, now });
    let taken: number | null = null;
    const waiting = turns.take('mainnet', wallet, async (turn) => {
      taken = turn.taken;
    });
    await pause(100);
    expect(taken).toBeNull();
    clock += leaseMs;
    await waiting;
    expect(taken).toBe(9);
  });

  it('answers 503 when another instance holds the wallet past the wait', async () => {
    const wallet = freshWallet();
    const holder = new WalletTurns(store, { pollMs: 5 });
    let release = () => {};
    const held = holder.take('mainnet', wallet, () => new Promise<void>((resolve) => (release = resolve)));
    await pause(50);
    const waiter = new WalletTurns(other, { pollMs: 5, waitMs: 100 });
    const refusal = await waiter.take('mainnet', wallet, async () => 'ran').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(503);
    release();
    await held;
    expect(await waiter.take('mainnet', wallet, async () => 'ran')).toBe('ran');
  });
});
