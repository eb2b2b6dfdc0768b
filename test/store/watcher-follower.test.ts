/**
 * The webhook watcher over a scripted follower: heights that hold no block, parents further back than
 * height - 1, and reorgs as deep as the family says they reach. The database is real (SQLite and
 * Postgres); the chain is a script, since no devnet skips heights.
 */
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlockFollower, Finality, FollowedBlock, HeightReading } from '../../src/chains/follower.ts';
import type { TransferEvent } from '../../src/chains/types.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { ChainWatcher } from '../../src/webhooks/watcher.ts';
import { freshDatabase, type TestDatabase } from '../helpers/gateway.ts';
import { openMigratedStore } from '../helpers/test-store.ts';
import { subscribeOneAddress } from '../webhooks/fixtures.ts';

const WATCHED = '0x00000000000000000000000000000000000000aa';
const SENDER = '0x00000000000000000000000000000000000000bb';

/** An ETH transfer from SENDER to the watched address; where it stands and how much it moves are the caller's. */
function transferToWatched(
  at: Pick<TransferEvent, 'blockNumber' | 'blockHash' | 'txid' | 'amountRaw' | 'time'>,
): TransferEvent {
  return {
    chain: 'ethereum',
    network: 'mainnet',
    logIndex: 0,
    from: SENDER,
    to: WATCHED,
    contractAddress: null,
    tokenId: null,
    type: 'ETH',
    decimals: 18,
    ...at,
  };
}

/** A chain whose every height is written by the test: a block, a skipped height, or nothing yet. */
class ScriptedChain implements BlockFollower {
  readonly heights = new Map<bigint, FollowedBlock | 'skipped'>();
  /** Heights read as not yet there, whatever they hold: the answers of a lagging node of a pool. */
  readonly lagging = new Set<bigint>();

  constructor(readonly finality: Finality) {}

  async head(): Promise<bigint> {
    return [...this.heights.keys()].reduce((a, b) => (a > b ? a : b), 0n);
  }

  async read(height: bigint): Promise<HeightReading> {
    const at = this.heights.get(height);
    if (at === undefined || this.lagging.has(height)) return { kind: 'not-yet' };
    return at === 'skipped' ? { kind: 'skipped' } : { kind: 'block', block: at };
  }

  /** Writes `block` at its height, building on the block at `parent` (on the chain as it is now). */
  block(number: number, parent: number, fork = 'a', paysWatched = false): FollowedBlock {
    const below = this.heights.get(BigInt(parent));
    const hash = `0x${fork}${number}`;
    const time = new Date(1_700_000_000_000 + number * 1000);
    const block: FollowedBlock = {
      number: BigInt(number),
      hash,
      parent: { number: BigInt(parent), hash: typeof below === 'object' ? below.hash : `0x${fork}${parent}` },
      time,
      transfers: paysWatched
        ? [
            transferToWatched({
              blockNumber: BigInt(number),
              blockHash: hash,
              txid: `0xtx${fork}${number}`,
              amountRaw: 1000n + BigInt(number),
              time,
            }),
          ]
        : [],
    };
    this.heights.set(block.number, block);
    return block;
  }

  skip(...heights: number[]): void {
    for (const height of heights) this.heights.set(BigInt(height), 'skipped');
  }
}

let database: TestDatabase;
let store: Store;
const watchers: ChainWatcher[] = [];

beforeEach(async () => {
  database = freshDatabase();
  store = await openMigratedStore(database);
  await subscribeOneAddress(store, 'ethereum', WATCHED);
});

afterEach(async () => {
  for (const watcher of watchers.splice(0)) await watcher.stop();
  await store.close();
  await database.drop();
});

function watch(chain: ScriptedChain): ChainWatcher {
  const watcher = new ChainWatcher({
    chain: 'ethereum',
    network: 'mainnet',
    follower: chain,
    db: store.db,
    logger: createLogger('silent'),
    metrics: new Registry(),
    instanceId: 'test',
  });
  watchers.push(watcher);
  return watcher;
}

async function cursor(): Promise<number> {
  const row = await store.db.selectFrom('chain_cursors').select('block_number').executeTakeFirstOrThrow();
  return Number(row.block_number);
}

async function notifiedBlocks(): Promise<number[]> {
  const rows = await store.db
    .selectFrom('notifications')
    .select('block_number')
    .orderBy('block_number')
    .execute();
  return rows.map((row) => Number(row.block_number));
}

describe('ChainWatcher over a follower that skips heights', () => {
  it('moves past skipped heights and delivers the block after them', async () => {
    const chain = new ScriptedChain({ finalityDepth: 32, reorgDepth: 32 });
    chain.block(10, 9);
    const watcher = watch(chain);
    await watcher.step(); // starts at the head: the cursor rests on 9
    expect(await cursor()).toBe(9);

    chain.skip(11, 12);
    chain.block(13, 10, 'a', true);
    await watcher.step();
    expect(await cursor()).toBe(13);
    expect(await notifiedBlocks()).toEqual([13]);

    // Skipped heights at the head: the cursor moves past them instead of waiting for a block there.
    chain.skip(14, 15);
    expect(await watcher.step()).toEqual({ progressed: true, idle: false });
    expect(await cursor()).toBe(15);
    expect(await watcher.step()).toEqual({ progressed: false, idle: false });

    chain.block(16, 13, 'a', true);
    await watcher.step();
    expect(await cursor()).toBe(16);
    expect(await notifiedBlocks()).toEqual([13, 16]);
  });

  it('unwinds a block whose height the canonical chain skips', async () => {
    const chain = new ScriptedChain({ finalityDepth: 32, reorgDepth: 32 });
    chain.block(10, 9);
    const watcher = watch(chain);
    await watcher.step();
    chain.block(11, 10, 'a', true);
    await watcher.step();
    expect(await notifiedBlocks()).toEqual([11]);

    // The fork skips 11 and builds 12 on 10: block 11 and its not yet sent notification leave.
    chain.skip(11);
    chain.block(12, 10, 'b', true);
    await watcher.step();
    expect(await cursor()).toBe(10);
    expect(await notifiedBlocks()).toEqual([]);
    await watcher.step();
    expect(await cursor()).toBe(12);
    expect(await notifiedBlocks()).toEqual([12]);
  });

  it('notices a block that appears at a height it read as skipped', async () => {
    const chain = new ScriptedChain({ finalityDepth: 32, reorgDepth: 32 });
    chain.block(10, 9);
    const watcher = watch(chain);
    await watcher.step();
    chain.skip(11);
    await watcher.step();
    expect(await cursor()).toBe(11);

    // The node changes its mind: 11 holds a block after all, and 12 builds on it.
    chain.block(11, 10, 'b', true);
    chain.block(12, 11, 'b');
    await watcher.step();
    expect(await cursor()).toBe(10);
    await watcher.step();
    expect(await cursor()).toBe(12);
    expect(await notifiedBlocks()).toEqual([11]);
  });
});

describe('ChainWatcher reorg depth', () => {
  it('keeps the hashes of the family’s reorg depth and unwinds no deeper', async () => {
    const chain = new ScriptedChain({ finalityDepth: 3, reorgDepth: 3 });
    chain.block(20, 19);
    const watcher = watch(chain);
    await watcher.step();
    for (let n = 21; n <= 30; n++) chain.block(n, n - 1);
    await watcher.step();
    expect(await cursor()).toBe(30);
    const kept = await store.db.selectFrom('chain_blocks').select('block_number').execute();
    expect(kept.map((row) => Number(row.block_number)).sort((a, b) => a - b)).toEqual([27, 28, 29, 30]);

    // A fork from deeper than the family says a reorg reaches: the watcher drops the 3 blocks and the base
    // block below them it kept, no more, and follows the fork from there.
    for (let n = 21; n <= 31; n++) chain.block(n, n - 1, 'b');
    await watcher.step();
    expect(await cursor()).toBe(26);
    await watcher.step();
    expect(await cursor()).toBe(31);
  });
});

describe('ChainWatcher unwinding through a lagging node', () => {
  it('waits for a node that has the blocks instead of taking back those it cannot see', async () => {
    const chain = new ScriptedChain({ finalityDepth: 32, reorgDepth: 32 });
    chain.block(10, 9);
    const watcher = watch(chain);
    await watcher.step();
    chain.block(11, 10);
    chain.block(12, 11, 'a', true);
    chain.block(13, 12);
    await watcher.step();
    expect(await cursor()).toBe(13);
    const notified = () =>
      store.db.selectFrom('notifications').select(['id', 'block_number', 'left_chain_at']).execute();
    const [before] = await notified();
    expect(before).toMatchObject({ block_number: 12, left_chain_at: null });

    // 13 is replaced; the fork part at 12. The answer for 12 comes from a node that has not reached it.
    chain.block(13, 12, 'b');
    chain.block(14, 13, 'b');
    chain.lagging.add(12n);
    await expect(watcher.step()).rejects.toThrow(/has no block 12/);
    expect(await cursor()).toBe(13);
    expect(await notified()).toEqual([before]);

    chain.lagging.clear();
    await watcher.step();
    expect(await cursor()).toBe(12);
    await watcher.step();
    expect(await cursor()).toBe(14);
    // Block 12 never left the chain: its notification stands, under the same id.
    expect(await notified()).toEqual([before]);
  });
});

describe('ChainWatcher and unconfirmed transfers', () => {
  /** A transfer to the watched address the node holds unconfirmed. */
  const unconfirmedTransfer = transferToWatched({
    blockNumber: 0n,
    blockHash: '',
    txid: '0xmempool',
    amountRaw: 5000n,
    time: new Date(1_700_000_000_000),
  });

  async function notifications() {
    const rows = await store.db
      .selectFrom('notifications')
      .select(['event', 'payload'])
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({ event: row.event, blocknumber: JSON.parse(row.payload).blocknumber }));
  }

  it('notifies a pending transfer once, only to subscriptions that ask, and the transfer when a block holds it', async () => {
    const chain = new ScriptedChain({ finalityDepth: 6, reorgDepth: 10 });
    const asked: (readonly string[])[] = [];
    const mempool = Object.assign(chain, {
      unconfirmed: async (addresses: readonly string[]) => {
        asked.push(addresses);
        return [unconfirmedTransfer];
      },
    });
    chain.block(10, 9);
    const watcher = watch(mempool);
    await watcher.step();
    await watcher.step();
    // Nobody asked for pending: the node is not even asked.
    expect(asked).toEqual([]);
    expect(await notifications()).toEqual([]);

    await store.db.updateTable('webhooks').set({ notify_pending: 1, change_version: 2 }).execute();
    await store.db.updateTable('watch_versions').set({ version: 2 }).execute();
    await watcher.step();
    await watcher.step();
    expect(asked.at(-1)).toEqual([WATCHED]);
    expect(await notifications()).toEqual([{ event: 'pending', blocknumber: null }]);

    chain.block(11, 10, 'a', true);
    await watcher.step();
    expect(await notifications()).toEqual([
      { event: 'pending', blocknumber: null },
      { event: 'transfer', blocknumber: '11' },
    ]);
  });
});
