// The ledger around litesvm: a slot counter, blocks (one per non-skipped slot), our own store of landed
// transactions with their meta, the recent blockhashes with their heights, and the token account index.
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  getTransactionDecoder,
  type Transaction,
  address as toAddress,
  lamports as toLamports,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { decodeWireTransaction, fromBase58, toBase58, type WireTransaction } from './codec.ts';
import { fieldlessError, RpcError, type TxError, txErrorOf } from './errors.ts';
import type { Json } from './json.ts';
import { decodeMint, decodeTokenAccount, TOKEN_PROGRAM, type TokenAccount, uiTokenAmount } from './token.ts';

export const LAMPORTS_PER_SIGNATURE = 5000n;
/** MAX_PROCESSING_AGE: a blockhash is usable for this many blocks. */
export const MAX_PROCESSING_AGE = 150n;
export const FINALIZED_DEPTH = 32n;
const ZERO_HASH = '11111111111111111111111111111111';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

export interface Block {
  slot: bigint;
  parentSlot: bigint;
  blockHeight: bigint;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  signatures: string[];
}

export interface TxMeta {
  err: Json;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: Json[];
  postTokenBalances: Json[];
  logMessages: string[];
  computeUnitsConsumed: bigint;
}

export interface TxRecord {
  signature: string;
  tx: WireTransaction;
  meta: TxMeta;
  /** Set when the transaction lands in a block. */
  slot: bigint | null;
}

export interface Simulation {
  err: TxError | null;
  logs: string[];
  unitsConsumed: bigint;
}

export interface ChainOptions {
  skipEvery?: number | null;
  now?: () => number;
}

export class SolanaChain {
  readonly svm: LiteSVM;
  /** The slot counter: the newest slot reached, with a block or skipped. */
  slot = 0n;
  readonly blocks = new Map<bigint, Block>();
  readonly skipped = new Set<bigint>();
  readonly txs = new Map<string, TxRecord>();
  readonly tokenAccounts = new Map<string, TokenAccount>();
  private readonly blockhashHeights = new Map<string, bigint>();
  private pending: TxRecord[] = [];
  private skipNext = 0;
  private readonly skipEvery: number | null;
  private readonly now: () => number;
  head: Block;

  constructor(options: ChainOptions = {}) {
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(false);
    this.skipEvery = options.skipEvery ?? null;
    this.now = options.now ?? Date.now;
    this.svm.warpToSlot(0n);
    this.head = {
      slot: 0n,
      parentSlot: 0n,
      blockHeight: 0n,
      blockhash: this.svm.latestBlockhash(),
      previousBlockhash: ZERO_HASH,
      blockTime: Math.floor(this.now() / 1000),
      signatures: [],
    };
    this.blocks.set(0n, this.head);
    this.blockhashHeights.set(this.head.blockhash, 0n);
  }

  /** Marks the next `n` slots skipped. */
  skip(n: number): void {
    this.skipNext += n;
  }

  private isSkipped(slot: bigint): boolean {
    if (this.skipNext > 0) {
      this.skipNext--;
      return true;
    }
    return this.skipEvery !== null && this.skipEvery > 0 && slot % BigInt(this.skipEvery) === 0n;
  }

  /** Moves the counter one slot: a skipped slot, or a block holding the pending transactions. */
  advanceSlot(): Block | null {
    this.slot++;
    this.svm.warpToSlot(this.slot);
    if (this.isSkipped(this.slot)) {
      this.skipped.add(this.slot);
      return null;
    }
    this.svm.expireBlockhash();
    const block: Block = {
      slot: this.slot,
      parentSlot: this.head.slot,
      blockHeight: this.head.blockHeight + 1n,
      blockhash: this.svm.latestBlockhash(),
      previousBlockhash: this.head.blockhash,
      blockTime: Math.floor(this.now() / 1000),
      signatures: this.pending.map((r) => r.signature),
    };
    for (const r of this.pending) r.slot = this.slot;
    this.pending = [];
    this.blocks.set(block.slot, block);
    this.blockhashHeights.set(block.blockhash, block.blockHeight);
    this.head = block;
    return block;
  }

  /** Advances until a block is produced (past any skipped slots). */
  produceBlock(): Block {
    for (;;) {
      const b = this.advanceSlot();
      if (b) return b;
    }
  }

  hasPending(): boolean {
    return this.pending.length > 0;
  }

  isBlockhashValid(blockhash: string): boolean {
    const h = this.blockhashHeights.get(blockhash);
    return h !== undefined && h + MAX_PROCESSING_AGE >= this.head.blockHeight;
  }

  /** Genesis allocation: sets an account's lamports outside any transaction. */
  fund(address: string, lamports: bigint): void {
    this.svm.setAccount({
      address: toAddress(address),
      lamports: toLamports(lamports),
      programAddress: toAddress(SYSTEM_PROGRAM),
      data: new Uint8Array(0),
      executable: false,
      space: 0n,
    });
  }

  balance(address: string): bigint {
    const acc = this.svm.getAccount(toAddress(address));
    return acc.exists ? acc.lamports : 0n;
  }

  account(address: string) {
    const acc = this.svm.getAccount(toAddress(address));
    return acc.exists ? acc : null;
  }

  mintDecimals(mint: string): number {
    const acc = this.account(mint);
    return acc ? (decodeMint(acc.data)?.decimals ?? 0) : 0;
  }

  private tokenBalances(keys: string[]): Json[] {
    const out: Json[] = [];
    keys.forEach((key, accountIndex) => {
      const acc = this.account(key);
      if (!acc || acc.programAddress !== TOKEN_PROGRAM) return;
      const t = decodeTokenAccount(acc.data);
      if (!t) return;
      out.push({
        accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: TOKEN_PROGRAM,
        uiTokenAmount: uiTokenAmount(t.amount, this.mintDecimals(t.mint)),
      });
    });
    return out;
  }

  private indexTokenAccounts(keys: string[]): void {
    for (const key of keys) {
      const acc = this.account(key);
      const t = acc && acc.programAddress === TOKEN_PROGRAM ? decodeTokenAccount(acc.data) : null;
      if (t) this.tokenAccounts.set(key, t);
      else this.tokenAccounts.delete(key);
    }
  }

  decode(bytes: Uint8Array): { wire: WireTransaction; kit: Transaction } {
    let wire: WireTransaction;
    let kit: Transaction;
    try {
      wire = decodeWireTransaction(bytes);
      kit = getTransactionDecoder().decode(bytes);
    } catch (err) {
      throw new RpcError(
        -32602,
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(err as Error).message}`,
      );
    }
    return { wire, kit };
  }

  verifySignatures(wire: WireTransaction): boolean {
    return wire.signatures.every((sig, i) => {
      const key = wire.message.accountKeys[i];
      if (!key) return false;
      try {
        return ed25519.verify(sig, wire.messageBytes, fromBase58(key));
      } catch {
        return false;
      }
    });
  }

  /** Runs a transaction without keeping its effects. */
  simulate(wire: WireTransaction, kit: Transaction): Simulation {
    if (!this.isBlockhashValid(wire.message.recentBlockhash)) {
      return { err: fieldlessError('BlockhashNotFound'), logs: [], unitsConsumed: 0n };
    }
    const sig = toBase58(wire.signatures[0] as Uint8Array);
    if (this.txs.has(sig)) return { err: fieldlessError('AlreadyProcessed'), logs: [], unitsConsumed: 0n };
    const r = this.svm.simulateTransaction(kit);
    if (r instanceof FailedTransactionMetadata) {
      const m = r.meta();
      return { err: txErrorOf(r), logs: m.logs(), unitsConsumed: m.computeUnitsConsumed() };
    }
    const m = r.meta();
    return { err: null, logs: m.logs(), unitsConsumed: m.computeUnitsConsumed() };
  }

  /**
   * Executes a transaction (signatures and preflight already checked by the caller as asked) and queues
   * it for the next block. Returns null when it could not be charged a fee, so it never lands.
   */
  execute(wire: WireTransaction, kit: Transaction): TxRecord | null {
    const signature = toBase58(wire.signatures[0] as Uint8Array);
    if (this.txs.has(signature) || !this.isBlockhashValid(wire.message.recentBlockhash)) return null;
    const keys = wire.message.accountKeys;
    const preBalances = keys.map((k) => this.balance(k));
    const preTokenBalances = this.tokenBalances(keys);
    const r = this.svm.sendTransaction(kit);
    const postBalances = keys.map((k) => this.balance(k));
    const failed = r instanceof FailedTransactionMetadata ? r : null;
    // A transaction that failed before paying its fee (no funds, no fee payer) is not recorded anywhere.
    if (failed && postBalances[0] === preBalances[0]) return null;
    const m = failed ? failed.meta() : (r as Exclude<typeof r, FailedTransactionMetadata>);
    const record: TxRecord = {
      signature,
      tx: wire,
      slot: null,
      meta: {
        err: failed ? txErrorOf(failed).json : null,
        fee: LAMPORTS_PER_SIGNATURE * BigInt(wire.signatures.length),
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances: this.tokenBalances(keys),
        logMessages: m.logs(),
        computeUnitsConsumed: m.computeUnitsConsumed(),
      },
    };
    this.indexTokenAccounts(keys);
    this.txs.set(signature, record);
    this.pending.push(record);
    return record;
  }
}
