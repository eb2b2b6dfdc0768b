/**
 * A watcher whose node announces no blocks reads the head at the pace of the chain's block time: when a
 * block has come on time, not again before the next is due (at most every third of a block time, and
 * every 5 s on Bitcoin), where a fixed poll would have asked every 500 ms. The chain is a script whose
 * head reads are counted; the database is real.
 */
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BITCOIN_BLOCK_TIME_MS } from '../../src/chains/bitcoin/finality.ts';
import type { BlockFollower, FollowedBlock, HeightReading } from '../../src/chains/follower.ts';
import { TRON_BLOCK_TIME_MS } from '../../src/chains/tron/finality.ts';
import type { TransferEvent } from '../../src/chains/types.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { ChainWatcher } from '../../src/webhooks/watcher.ts';
import { freshDatabase, type TestDatabase } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { openMigratedStore } from '../helpers/test-store.ts';
import { subscribeOneAddress } from '../webhooks/fixtures.ts';

/** A chain of empty blocks added by the test, each stamped when the test says. */
class TimedChain implements BlockFollower {
  readonly finality = { finalityDepth: 1, reorgDepth: 1 };
  readonly blocks: FollowedBlock[] = [];
  headReads = 0;

  constructor(readonly blockTimeMs: number | undefined) {}

  async head(): Promise<bigint> {
    this.headReads++;
    return this.blocks.at(-1)?.number ?? 0n;
  }

  async read(height: bigint): Promise<HeightReading> {
    const block = this.blocks.find((b) => b.number === height);
    return block === undefined ? { kind: 'not-yet' } : { kind: 'block', block };
  }

  /** The mempool's transfers: none, but each read is counted. */
  unconfirmed = async (): Promise<TransferEvent[]> => {
    this.mempoolReads++;
    return [];
  };
  mempoolReads = 0;

  add(time: number): void {
    const number = BigInt(this.blocks.length + 1);
    const parent = { number: number - 1n, hash: `0x${number - 1n}` };
    this.blocks.push({ number, hash: `0x${number}`, parent, time: new Date(time), transfers: [] });
  }
}

let database: TestDatabase;
let store: Store;
const watchers: ChainWatcher[] = [];

beforeEach(async () => {
  database = freshDatabase();
  store = await openMigratedStore(database);
  // One subscription, so the watcher follows the chain rather than idling.
  await subscribeOneAddress(store, 'tron', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
});

afterEach(async () => {
  for (const watcher of watchers.splice(0)) await watcher.stop();
  await store.close();
  await database.drop();
});

function watch(chain: TimedChain): ChainWatcher {
  const watcher = new ChainWatcher({
    chain: 'tron',
    network: 'mainnet',
    follower: chain,
    db: store.db,
    logger: createLogger('silent'),
    metrics: new Registry(),
    instanceId: 'test',
  });
  watchers.push(watcher);
  watcher.start();
  return watcher;
}

async function cursorReaches(height: number): Promise<void> {
  await waitFor(async () => {
    const row = await store.db.selectFrom('chain_cursors').select('block_number').executeTakeFirst();
    return row !== undefined && Number(row.block_number) >= height ? true : undefined;
  }, 10_000);
}

/** Head reads in the 1.5 s after a block that came on time, the chain stamping blocks `blockTime` apart. */
async function readsAfterBlockOnTime(blockTime: number | undefined, chain = new TimedChain(blockTime)) {
  const spacing = blockTime ?? TRON_BLOCK_TIME_MS;
  chain.add(Date.now() - 3 * spacing);
  watch(chain);
  await cursorReaches(0);
  chain.add(Date.now() - 2 * spacing);
  await cursorReaches(2);
  // Due long ago when it is seen: this block came on time, and the next is due a block time after it.
  chain.add(Date.now());
  await cursorReaches(3);
  const before = chain.headReads;
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return chain.headReads - before;
}

describe('ChainWatcher paced by the block time', () => {
  it.each([
    ['Tron', TRON_BLOCK_TIME_MS],
    ['Bitcoin', BITCOIN_BLOCK_TIME_MS],
  ])(
    '%s: after a block on time, the head is not read again before the next is nearly due',
    async (_, blockTime) => {
      expect(await readsAfterBlockOnTime(blockTime)).toBeLessThanOrEqual(1);
    },
  );

  it('a follower without a block time is read at the fixed pace, as before', async () => {
    expect(await readsAfterBlockOnTime(undefined)).toBeGreaterThanOrEqual(2);
  });

  it('reads the mempool at the fixed pace while a subscription asks for pending transfers', async () => {
    await store.db.updateTable('webhooks').set({ notify_pending: 1 }).execute();
    const chain = new TimedChain(BITCOIN_BLOCK_TIME_MS);
    expect(await readsAfterBlockOnTime(BITCOIN_BLOCK_TIME_MS, chain)).toBeGreaterThanOrEqual(2);
    expect(chain.mempoolReads).toBeGreaterThanOrEqual(3);
  });

  it('follows blocks made on demand, stamped ahead of the clock, one after another', async () => {
    const chain = new TimedChain(TRON_BLOCK_TIME_MS);
    const start = Date.now();
    chain.add(start);
    watch(chain);
    await cursorReaches(0);
    for (let i = 2; i <= 8; i++) {
      chain.add(start + i * TRON_BLOCK_TIME_MS);
      await cursorReaches(i);
    }
  });
});
