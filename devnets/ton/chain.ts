// The devnet's chain over the emulator: the queue of external messages waiting for the next block, the
// masterchain blocks (each closing one basechain block with the transactions run since the last one),
// and the store of those transactions, found by hash, by message hash and by account.
import { createHash } from 'node:crypto';
import { type Address, Cell, loadTransaction, type Message, type Transaction } from '@ton/core';
import type { DevnetBlockchain, EmulatorState } from './emulator.ts';
import { messageCells, normalizedExternalHash } from './messages.ts';

export const MASTERCHAIN = -1;
export const BASECHAIN = 0;
/** The one shard of each chain: the whole address space. */
export const WHOLE_SHARD = '8000000000000000';

export interface BlockRecord {
  seqno: number;
  /** Unix seconds when the block closed. */
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  /** The masterchain block's hashes, then its basechain block's (base64). */
  rootHash: string;
  fileHash: string;
  shardRootHash: string;
  shardFileHash: string;
  /** Hashes (base64) of the transactions of the basechain block, in lt order. */
  txs: string[];
}

export interface TxRecord {
  /** The transaction cell as base64 BOC. */
  boc: string;
  mcSeqno: number;
  /** Hash (base64) of the first transaction of the trace it belongs to. */
  traceId: string;
}

/** A filed transaction, parsed once. */
export interface StoredTx {
  tx: Transaction;
  hash: string;
  mcSeqno: number;
  traceId: string;
  inMsg: Cell | null;
  outMsgs: Cell[];
}

/** Work waiting for the next block: an external message, or one the devnet signs when its turn comes. */
export interface QueuedMessage {
  message: () => Promise<Message | Cell>;
  /** Told the block's outcome: null when the message ran, else why it left no transaction. */
  settle: (refusal: Error | null) => void;
}

export interface ChainState {
  emulator: EmulatorState;
  blocks: BlockRecord[];
  txs: TxRecord[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

export class TonChain {
  readonly blocks: BlockRecord[] = [];
  private readonly txByHash = new Map<string, StoredTx>();
  /** Message hash (and normalized external hash) -> hashes of the transactions it is the in_msg of. */
  private readonly txByInMsg = new Map<string, string[]>();
  /** Message hash -> hashes of the transactions it is an out_msg of. */
  private readonly txByOutMsg = new Map<string, string[]>();
  /** Raw account -> hashes of its transactions, oldest first. */
  private readonly txByAccount = new Map<string, string[]>();
  private queue: QueuedMessage[] = [];
  private readonly order: string[] = [];

  constructor(
    readonly emulator: DevnetBlockchain,
    readonly globalId: number,
  ) {}

  get head(): BlockRecord {
    const head = this.blocks.at(-1);
    if (!head) throw new Error('the chain has no block yet');
    return head;
  }

  enqueue(item: QueuedMessage): void {
    this.queue.push(item);
  }

  hasQueued(): boolean {
    return this.queue.length > 0;
  }

  /**
   * Closes the next block: runs the queued messages in arrival order (a refused one leaves nothing),
   * files the transactions they caused, and links the block to the last one.
   */
  async closeBlock(): Promise<BlockRecord> {
    const previous = this.blocks.at(-1);
    const seqno = previous ? previous.seqno + 1 : 0;
    const genUtime = Math.max(previous?.genUtime ?? 0, Math.floor(Date.now() / 1000));
    this.emulator.now = genUtime;
    const startLt = this.emulator.lt;
    const ran: { tx: Transaction; traceId: string }[] = [];
    const items = this.queue;
    this.queue = [];
    for (const item of items) {
      try {
        const { transactions } = await this.emulator.sendMessage(await item.message());
        const traceId = transactions[0]?.hash().toString('base64') ?? '';
        ran.push(...transactions.map((tx) => ({ tx, traceId })));
        item.settle(null);
      } catch (error) {
        item.settle(error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.emulator.forgetTransactions();
    ran.sort((a, b) => (a.tx.lt < b.tx.lt ? -1 : a.tx.lt > b.tx.lt ? 1 : 0));
    const txHashes = ran.map(({ tx }) => tx.hash().toString('base64'));
    const prevRoot = previous?.rootHash ?? '';
    const shardContent = JSON.stringify({ wc: BASECHAIN, seqno, genUtime, prevRoot, txHashes });
    const shardRootHash = sha256(`root:${shardContent}`);
    const rootContent = JSON.stringify({
      wc: MASTERCHAIN,
      seqno,
      genUtime,
      prevRoot,
      shardRootHash,
      g: this.globalId,
    });
    const block: BlockRecord = {
      seqno,
      genUtime,
      startLt,
      endLt: this.emulator.lt,
      rootHash: sha256(`root:${rootContent}`),
      fileHash: sha256(`file:${rootContent}`),
      shardRootHash,
      shardFileHash: sha256(`file:${shardContent}`),
      txs: txHashes,
    };
    for (const { tx, traceId } of ran) this.file(tx, seqno, traceId);
    this.blocks.push(block);
    return block;
  }

  private file(tx: Transaction, mcSeqno: number, traceId: string): void {
    const hash = tx.hash().toString('base64');
    if (this.txByHash.has(hash)) return;
    const { inMsg, outMsgs } = messageCells(tx.raw);
    this.txByHash.set(hash, { tx, hash, mcSeqno, traceId, inMsg, outMsgs });
    this.order.push(hash);
    const add = (index: Map<string, string[]>, key: string) => {
      const list = index.get(key);
      if (list) list.push(hash);
      else index.set(key, [hash]);
    };
    add(this.txByAccount, accountOf(tx));
    if (inMsg) {
      add(this.txByInMsg, inMsg.hash().toString('base64'));
      const norm = tx.inMessage?.info.type === 'external-in' ? normalizedExternalHash(tx.inMessage) : null;
      if (norm) add(this.txByInMsg, norm.toString('base64'));
    }
    for (const out of outMsgs) add(this.txByOutMsg, out.hash().toString('base64'));
  }

  tx(hash: string): StoredTx | undefined {
    return this.txByHash.get(hash);
  }

  /** Transactions whose in_msg (direction "in") or out_msgs ("out") hold the message, by its hash or normalized hash. */
  txsByMessage(hash: string, direction: 'in' | 'out' | null): StoredTx[] {
    const hashes = [
      ...(direction !== 'out' ? (this.txByInMsg.get(hash) ?? []) : []),
      ...(direction !== 'in' ? (this.txByOutMsg.get(hash) ?? []) : []),
    ];
    return [...new Set(hashes)].flatMap((h) => this.txByHash.get(h) ?? []);
  }

  txsOfAccount(raw: string): StoredTx[] {
    return (this.txByAccount.get(raw) ?? []).flatMap((h) => this.txByHash.get(h) ?? []);
  }

  allTxs(): StoredTx[] {
    return this.order.flatMap((h) => this.txByHash.get(h) ?? []);
  }

  block(seqno: number): BlockRecord | undefined {
    const first = this.blocks[0]?.seqno ?? 0;
    return this.blocks[seqno - first];
  }

  /** Whether a block in (after, upTo] holds a transaction. */
  hasTransactions(after: number, upTo: number): boolean {
    for (let s = after + 1; s <= upTo; s++) if ((this.block(s)?.txs.length ?? 0) > 0) return true;
    return false;
  }

  exportState(): ChainState {
    return {
      emulator: this.emulator.exportState(),
      blocks: this.blocks,
      txs: this.allTxs().map((t) => ({
        boc: t.tx.raw.toBoc().toString('base64'),
        mcSeqno: t.mcSeqno,
        traceId: t.traceId,
      })),
    };
  }

  async importState(state: ChainState): Promise<void> {
    await this.emulator.importState(state.emulator);
    this.blocks.push(...state.blocks);
    for (const t of state.txs) {
      this.file(loadTransaction(Cell.fromBase64(t.boc).beginParse()), t.mcSeqno, t.traceId);
    }
  }

  /** The emulator's account at `address`, or undefined when it has never been touched. */
  peek(address: Address) {
    return this.emulator.peek(address);
  }
}

/** The raw address ("0:ABC…", upper-case hex as the API writes it) of a basechain transaction's account. */
export function accountOf(tx: Transaction): string {
  return `${BASECHAIN}:${tx.address.toString(16).padStart(64, '0').toUpperCase()}`;
}
