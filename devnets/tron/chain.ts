// The node: head world state (pending transactions applied, as java-tron's pending session does),
// the block list, transaction index, and per-block snapshots for the solidified view.
import { hexToBytes } from '@noble/hashes/utils.js';
import { addressFromPrivateKey, type HexAddress } from './address.ts';
import { type Block, sealBlock } from './block.ts';
import type { ChainParams } from './params.ts';
import { type ProcessContext, processTransaction } from './processor.ts';
import { cloneWorld, type WorldState } from './state.ts';
import { type Transaction, txIdOf } from './transaction.ts';
import type { TransactionInfo } from './transaction-info.ts';
import type { TvmBlock } from './tvm.ts';

export const BLOCK_INTERVAL_MS = 3000n;
const BLOCK_VERSION = 34;
const TAPOS_WINDOW = 65_536n;
/**
 * How many blocks back a reorg may go, whatever the solidified window: the world after each of them is
 * kept. java-tron never switches below its solidified block; a devnet solidified at once still lets a
 * test replace its newest blocks, as anvil_reorg does.
 */
export const REORG_WINDOW = 32n;

export interface StoredTx {
  tx: Transaction;
  info: TransactionInfo;
  blockNumber: bigint;
}

/** A chain as saved: what a restarted node brings back (its mempool is not part of it). */
export interface ChainHistory {
  /** Every block from genesis to the head. */
  blocks: Block[];
  /** The result of each transaction in those blocks. */
  infos: TransactionInfo[];
  /** The world after each recent block, the head's included: the solidified view reads them. */
  worlds: Map<bigint, WorldState>;
}

export interface ChainOptions {
  params: ChainParams;
  /** The genesis allocations (unused with `history`, which holds the head's world). */
  world: WorldState;
  /** Carries on a saved chain instead of starting one from a genesis block. */
  history?: ChainHistory;
  witnessKey: Uint8Array;
  solidifyLag: number;
  /**
   * Block time source. 'wall' (scheduled production): the next slot at or after now.
   * 'virtual' (mine() only): each block is 3 s after its parent, so an idle devnet never
   * makes freshly built transactions look expired.
   */
  time?: 'wall' | 'virtual';
  /** Wall clock, injectable so tests can move time. */
  clock?: () => number;
}

export class TronChain {
  readonly params: ChainParams;
  readonly witness: HexAddress;
  readonly solidifyLag: bigint;
  /** Mainnet's genesis block has timestamp 0, so head slot = head time / 3000. */
  readonly genesisTime = 0n;
  private readonly witnessKey: Uint8Array;
  private readonly clock: () => number;
  private readonly virtualTime: boolean;
  private readonly blocks: Block[] = [];
  private readonly byId = new Map<string, Block>();
  private readonly txs = new Map<string, StoredTx>();
  private pending: { tx: Transaction; info: TransactionInfo }[] = [];
  private readonly snapshots = new Map<bigint, WorldState>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Head state including pending transactions. */
  world: WorldState;

  constructor(opts: ChainOptions) {
    this.params = opts.params;
    this.world = opts.world;
    this.witnessKey = opts.witnessKey;
    this.witness = addressFromPrivateKey(opts.witnessKey);
    this.solidifyLag = BigInt(Math.max(0, opts.solidifyLag));
    this.clock = opts.clock ?? Date.now;
    this.virtualTime = opts.time === 'virtual';
    if (opts.history) {
      this.restore(opts.history);
      return;
    }
    const genesis = sealBlock(
      {
        timestamp: 0n,
        parentHash: new Uint8Array(32),
        number: 0n,
        witnessAddress: this.witness,
        version: BLOCK_VERSION,
      },
      [],
      this.witnessKey,
    );
    this.append(genesis);
  }

  private append(block: Block): void {
    this.blocks.push(block);
    this.byId.set(block.id, block);
    this.snapshots.set(block.header.number, cloneWorld(this.world));
    const keepFrom =
      block.header.number - (this.solidifyLag > REORG_WINDOW ? this.solidifyLag : REORG_WINDOW);
    for (const n of this.snapshots.keys()) if (n < keepFrom) this.snapshots.delete(n);
  }

  private restore(history: ChainHistory): void {
    history.blocks.forEach((block, index) => {
      if (block.header.number !== BigInt(index)) throw new Error(`saved chain lacks block ${index}`);
      this.blocks.push(block);
      this.byId.set(block.id, block);
    });
    if (this.blocks.length === 0) throw new Error('saved chain has no blocks');
    const infos = new Map(history.infos.map((info) => [info.id, info]));
    for (const block of this.blocks) {
      for (const tx of block.transactions) {
        const id = txIdOf(tx.raw);
        const info = infos.get(id);
        if (!info) throw new Error(`saved chain lacks the result of transaction ${id}`);
        this.txs.set(id, { tx, info, blockNumber: block.header.number });
      }
    }
    // The solidified view needs the world of every block it may show. One the save lacks (it kept a
    // shorter window) is stood in for by the nearest older saved world, else the oldest saved.
    const head = this.head.header.number;
    const saved = [...history.worlds.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const headWorld = history.worlds.get(head);
    if (!headWorld) throw new Error('saved chain lacks the world of its head block');
    const from = head > this.solidifyLag ? head - this.solidifyLag : 0n;
    for (let n = from; n <= head; n++) {
      let world = (saved[0] as [bigint, WorldState])[1];
      for (const [m, w] of saved) if (m <= n) world = w;
      this.snapshots.set(n, world);
    }
    // The head's world changes as transactions come; the saved snapshot of it must not.
    this.world = cloneWorld(headWorld);
  }

  /** The chain as of its head block, for saving: pending transactions are left out, as a mempool is. */
  history(): ChainHistory {
    return {
      blocks: [...this.blocks],
      infos: [...this.txs.values()].map((t) => t.info),
      worlds: new Map(this.snapshots),
    };
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1] as Block;
  }

  get headTime(): bigint {
    return this.head.header.timestamp;
  }

  get headSlot(): bigint {
    return (this.headTime - this.genesisTime) / BLOCK_INTERVAL_MS;
  }

  get solidNumber(): bigint {
    const n = this.head.header.number - this.solidifyLag;
    return n > 0n ? n : 0n;
  }

  get solidBlock(): Block {
    return this.blocks[Number(this.solidNumber)] as Block;
  }

  /** World as of the head (with pending) or as of the solidified block. */
  worldAt(solid: boolean): WorldState {
    return solid ? (this.snapshots.get(this.solidNumber) as WorldState) : this.world;
  }

  blockByNumber(n: bigint, solid = false): Block | undefined {
    if (n < 0n || n > (solid ? this.solidNumber : this.head.header.number)) return undefined;
    return this.blocks[Number(n)];
  }

  blockById(id: string, solid = false): Block | undefined {
    const b = this.byId.get(id.toLowerCase());
    if (!b || (solid && b.header.number > this.solidNumber)) return undefined;
    return b;
  }

  transaction(id: string, solid = false): StoredTx | undefined {
    const t = this.txs.get(id.toLowerCase());
    if (!t || (solid && t.blockNumber > this.solidNumber)) return undefined;
    return t;
  }

  pendingIds(): string[] {
    return this.pending.map((p) => p.info.id);
  }

  /** Runs mutations one at a time: the TVM is async and the world must not interleave. */
  serialize<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private nextBlockTime(): bigint {
    const next = this.headTime + BLOCK_INTERVAL_MS;
    // Block 1 always starts at the wall clock: genesis carries timestamp 0.
    if (this.virtualTime && this.head.header.number > 0n) return next;
    const aligned = (BigInt(this.clock()) / BLOCK_INTERVAL_MS) * BLOCK_INTERVAL_MS;
    return aligned > next ? aligned : next;
  }

  nextTvmBlock(): TvmBlock {
    return { number: this.head.header.number + 1n, timestamp: this.nextBlockTime(), witness: this.witness };
  }

  /** The recent-block store java-tron checks TaPoS against (keyed by the low 16 bits of the number). */
  refBlockHash(refBlockBytes: Uint8Array): Uint8Array | null {
    if (refBlockBytes.length !== 2) return null;
    const low = BigInt(((refBlockBytes[0] as number) << 8) | (refBlockBytes[1] as number));
    const head = this.head.header.number;
    const n = head - ((head - low) & 0xffffn);
    if (n < 0n || head - n >= TAPOS_WINDOW) return null;
    const block = this.blocks[Number(n)];
    return block ? hexToBytes(block.id.slice(16, 32)) : null;
  }

  processContext(world = this.world): ProcessContext {
    return {
      world,
      params: this.params,
      headTime: this.headTime,
      headSlot: this.headSlot,
      nextBlock: this.nextTvmBlock(),
      refBlockHash: (b) => this.refBlockHash(b),
      isKnown: (id) => this.txs.has(id) || this.pending.some((p) => p.info.id === id),
    };
  }

  /** Validates, executes and queues a signed transaction; throws BroadcastError on rejection. */
  submit(tx: Transaction): Promise<TransactionInfo> {
    return this.serialize(async () => {
      const processed = await processTransaction(this.processContext(), tx);
      this.world = processed.world;
      this.pending.push({ tx: processed.tx, info: processed.info });
      return processed.info;
    });
  }

  mine(count = 1): Promise<Block[]> {
    return this.serialize(() => {
      const out: Block[] = [];
      for (let i = 0; i < count; i++) out.push(this.produce());
      return out;
    });
  }

  /**
   * Replaces the newest `depth` blocks with as many empty ones: their transactions, and the pending ones,
   * are dropped, and the world goes back to the block below them. A follower sees the new blocks' parent
   * hashes change, as on a fork switch.
   */
  reorg(depth: number): Promise<Block[]> {
    return this.serialize(() => {
      const head = this.head.header.number;
      const base = head - BigInt(depth);
      const baseWorld = this.snapshots.get(base);
      if (depth < 1 || base < 0n || baseWorld === undefined)
        throw new Error(`a reorg reaches back at most ${REORG_WINDOW} blocks, and not past genesis`);
      for (const dropped of this.blocks.splice(Number(base) + 1)) {
        this.byId.delete(dropped.id);
        this.snapshots.delete(dropped.header.number);
        for (const tx of dropped.transactions) this.txs.delete(txIdOf(tx.raw));
      }
      this.pending = [];
      this.world = cloneWorld(baseWorld);
      const out: Block[] = [];
      for (let i = 0; i < depth; i++) out.push(this.produce());
      return out;
    });
  }

  private produce(): Block {
    const timestamp = this.nextBlockTime();
    const number = this.head.header.number + 1n;
    const included = this.pending;
    this.pending = [];
    const block = sealBlock(
      {
        timestamp,
        parentHash: hexToBytes(this.head.id),
        number,
        witnessAddress: this.witness,
        version: BLOCK_VERSION,
      },
      included.map((p) => p.tx),
      this.witnessKey,
    );
    for (const p of included) {
      p.info.blockNumber = number;
      p.info.blockTimeStamp = timestamp;
      this.txs.set(p.info.id, { tx: p.tx, info: p.info, blockNumber: number });
    }
    this.append(block);
    return block;
  }

  blocksInRange(start: bigint, end: bigint, solid = false): Block[] {
    const out: Block[] = [];
    const last = solid ? this.solidNumber : this.head.header.number;
    for (let n = start < 0n ? 0n : start; n < end && n <= last; n++)
      out.push(this.blocks[Number(n)] as Block);
    return out;
  }

  txInfosOfBlock(n: bigint): TransactionInfo[] {
    const block = this.blocks[Number(n)];
    if (!block) return [];
    return block.transactions.map((tx) => (this.txs.get(txIdOf(tx.raw)) as StoredTx).info);
  }
}
