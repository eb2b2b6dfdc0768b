// The ledger around litesvm: a slot counter, blocks (one per non-skipped slot), our own store of landed
// transactions with their meta, the recent blockhashes with their heights, the token account index, the
// set of accounts ever touched (litesvm cannot list its accounts, and a save must) and a per-block undo
// log of the accounts each transaction wrote (litesvm has no snapshots, and a reorg must go back).
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  getTransactionDecoder,
  type Transaction,
  address as toAddress,
  lamports as toLamports,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  decodeWireTransaction,
  fromBase58,
  isWritable,
  type Message,
  toBase58,
  type WireTransaction,
} from './codec.ts';
import { fieldlessError, RpcError, type TxError, txErrorOf } from './errors.ts';
import type { Json } from './json.ts';
import { decodeMint, decodeTokenAccount, isTokenProgram, type TokenAccount, uiTokenAmount } from './token.ts';

export const LAMPORTS_PER_SIGNATURE = 5000n;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** The runtime's builtin programs: without SetComputeUnitLimit, an instruction of theirs is given 3,000 units. */
const BUILTIN_PROGRAMS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET_PROGRAM,
  'AddressLookupTab1e1111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
]);
const BUILTIN_UNITS = 3_000n;
const DEFAULT_UNITS = 200_000n;
const MAX_UNITS = 1_400_000n;

const atMost = (value: bigint, cap: bigint) => (value < cap ? value : cap);

/**
 * What the runtime charges a message: 5,000 lamports per signature, plus its priority fee, the
 * SetComputeUnitPrice (micro-lamports per unit) times the SetComputeUnitLimit, rounded up to a lamport.
 * Without a limit, each instruction is given 3,000 units for a builtin program and 200,000 for any other,
 * at most 1.4M in all. As litesvm charges it; the meta and getFeeForMessage report it.
 */
export function messageFee(message: Message): bigint {
  let price = 0n;
  let limit: bigint | null = null;
  let defaultUnits = 0n;
  for (const ix of message.instructions) {
    const program = message.accountKeys[ix.programIdIndex] ?? '';
    defaultUnits += BUILTIN_PROGRAMS.has(program) ? BUILTIN_UNITS : DEFAULT_UNITS;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const data = ix.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === 2 && data.length >= 5) limit = BigInt(view.getUint32(1, true));
    if (data[0] === 3 && data.length >= 9) price = view.getBigUint64(1, true);
  }
  const units = atMost(limit ?? defaultUnits, MAX_UNITS);
  const priority = (price * units + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.numRequiredSignatures) + priority;
}
/** MAX_PROCESSING_AGE: a blockhash is usable for this many blocks. */
export const MAX_PROCESSING_AGE = 150n;
export const FINALIZED_DEPTH = 32n;
const ZERO_HASH = '11111111111111111111111111111111';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const SYSVAR_OWNER = 'Sysvar1111111111111111111111111111111111111';
const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const LOOKUP_TABLE_HEADER = 56;
/** How many of the newest blocks a reorg may replace (their undo logs are kept), as the Tron devnet. */
export const REORG_WINDOW = 32;

/** An account's whole state, as saved and as restored by a reorg. */
export interface AccountState {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** An account's state before a transaction wrote it; null: it did not exist. */
export interface UndoEntry {
  address: string;
  before: AccountState | null;
}

export type IndexedTokenAccount = TokenAccount & { program: string };

/** Everything a restarted devnet needs to carry on (see snapshot.ts for the file). */
export interface ChainState {
  slot: bigint;
  skipNext: number;
  skipped: bigint[];
  /** In slot order. */
  blocks: Block[];
  /** Landed and pending, in the order they ran. */
  txs: TxRecord[];
  pending: string[];
  touched: string[];
  accounts: [string, AccountState][];
  undo: [bigint, UndoEntry[]][];
  pendingUndo: UndoEntry[];
}

// Programs and sysvars come with litesvm; writing them back would only risk its program cache.
const restorable = (s: AccountState | null): s is AccountState =>
  s !== null && !s.executable && s.owner !== SYSVAR_OWNER;

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
  /** Carries on a saved chain instead of starting at genesis. */
  state?: ChainState;
}

export class SolanaChain {
  readonly svm: LiteSVM;
  /** The slot counter: the newest slot reached, with a block or skipped. */
  slot = 0n;
  readonly blocks = new Map<bigint, Block>();
  readonly skipped = new Set<bigint>();
  readonly txs = new Map<string, TxRecord>();
  readonly tokenAccounts = new Map<string, IndexedTokenAccount>();
  /** Every account a transaction named or the devnet set: what a save writes out. */
  readonly touched = new Set<string>();
  private readonly blockhashHeights = new Map<string, bigint>();
  private pending: TxRecord[] = [];
  /** Per block (slot), in block order, the newest REORG_WINDOW: pre-states, in execution order. */
  private readonly undoLog = new Map<bigint, UndoEntry[]>();
  private pendingUndo: UndoEntry[] = [];
  private skipNext = 0;
  private readonly skipEvery: number | null;
  private readonly now: () => number;
  /** The slot counter when the last reorg happened (-1: never), so a saver sees the change. */
  reorgedAt = -1n;
  head: Block;

  constructor(options: ChainOptions = {}) {
    // No litesvm transaction history: our store answers AlreadyProcessed, and after a reorg a dropped
    // transaction may be sent again, which litesvm's own history would refuse.
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(false).withTransactionHistory(0n);
    this.skipEvery = options.skipEvery ?? null;
    this.now = options.now ?? Date.now;
    this.head = options.state ? this.restore(options.state) : this.genesis();
  }

  private genesis(): Block {
    this.svm.warpToSlot(0n);
    const head: Block = {
      slot: 0n,
      parentSlot: 0n,
      blockHeight: 0n,
      blockhash: this.svm.latestBlockhash(),
      previousBlockhash: ZERO_HASH,
      blockTime: Math.floor(this.now() / 1000),
      signatures: [],
    };
    this.blocks.set(0n, head);
    this.blockhashHeights.set(head.blockhash, 0n);
    return head;
  }

  private restore(state: ChainState): Block {
    this.slot = state.slot;
    this.svm.warpToSlot(state.slot);
    this.skipNext = state.skipNext;
    for (const s of state.skipped) this.skipped.add(s);
    let head: Block | undefined;
    for (const b of state.blocks) {
      this.blocks.set(b.slot, b);
      this.blockhashHeights.set(b.blockhash, b.blockHeight);
      if (!head || b.slot > head.slot) head = b;
    }
    if (!head) throw new Error('saved chain has no blocks');
    for (const r of state.txs) this.txs.set(r.signature, r);
    this.pending = state.pending.flatMap((sig) => this.txs.get(sig) ?? []);
    for (const a of state.touched) this.touched.add(a);
    for (const [address, acc] of state.accounts) this.writeAccount(address, acc);
    for (const [slot, entries] of state.undo) this.undoLog.set(slot, entries);
    this.pendingUndo = [...state.pendingUndo];
    this.indexTokenAccounts([...this.touched]);
    return head;
  }

  /** The chain as it is now, pending transactions included (their effects are in the accounts). */
  exportState(): ChainState {
    const accounts: [string, AccountState][] = [];
    for (const address of this.touched) {
      const acc = this.accountState(address);
      if (restorable(acc)) accounts.push([address, acc]);
    }
    return {
      slot: this.slot,
      skipNext: this.skipNext,
      skipped: [...this.skipped].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      blocks: [...this.blocks.values()].sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0)),
      txs: [...this.txs.values()],
      pending: this.pending.map((r) => r.signature),
      touched: [...this.touched],
      accounts,
      undo: [...this.undoLog],
      pendingUndo: [...this.pendingUndo],
    };
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
    this.undoLog.set(block.slot, this.pendingUndo);
    this.pendingUndo = [];
    // Map keys keep insertion (block) order: the first is the oldest.
    while (this.undoLog.size > REORG_WINDOW) this.undoLog.delete(this.undoLog.keys().next().value as bigint);
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

  /**
   * Replaces the newest `depth` blocks with as many new empty ones, as a fork switch would: their
   * transactions and the pending ones are dropped, every account they wrote goes back to its state before
   * them, their slots answer as skipped, and the new blocks take new slots with fresh blockhashes.
   */
  reorg(depth: number): Block[] {
    const window = Math.min(REORG_WINDOW, this.undoLog.size);
    if (!Number.isInteger(depth) || depth < 1 || depth > window) {
      throw new Error(`a reorg replaces 1 to ${window} blocks now (at most ${REORG_WINDOW}, not genesis)`);
    }
    const dropped = [...this.undoLog.keys()].slice(-depth);
    const restored = new Set<string>();
    // Newest first, so each account ends at its state before the oldest dropped write.
    const undo = (entries: UndoEntry[]) => {
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i] as UndoEntry;
        this.writeAccount(e.address, e.before);
        restored.add(e.address);
      }
    };
    undo(this.pendingUndo);
    for (const slot of [...dropped].reverse()) undo(this.undoLog.get(slot) ?? []);
    for (const r of this.pending) this.txs.delete(r.signature);
    this.pending = [];
    this.pendingUndo = [];
    const oldest = this.blocks.get(dropped[0] as bigint) as Block;
    for (const slot of dropped) {
      const b = this.blocks.get(slot) as Block;
      for (const sig of b.signatures) this.txs.delete(sig);
      this.blocks.delete(slot);
      this.blockhashHeights.delete(b.blockhash);
      this.undoLog.delete(slot);
      this.skipped.add(slot);
    }
    this.head = this.blocks.get(oldest.parentSlot) as Block;
    this.indexTokenAccounts([...restored]);
    this.reorgedAt = this.slot;
    const out: Block[] = [];
    for (let i = 0; i < depth; i++) out.push(this.produceBlock());
    return out;
  }

  /** Whether blocks in slots (after, upTo] hold a transaction, or a reorg happened there: worth a save. */
  changedIn(after: bigint, upTo: bigint): boolean {
    if (this.reorgedAt > after && this.reorgedAt <= upTo) return true;
    for (const b of this.blocks.values()) {
      if (b.slot > after && b.slot <= upTo && b.signatures.length > 0) return true;
    }
    return false;
  }

  accountState(address: string): AccountState | null {
    const acc = this.svm.getAccount(toAddress(address));
    if (!acc.exists) return null;
    return {
      lamports: acc.lamports,
      owner: acc.programAddress,
      executable: acc.executable,
      data: new Uint8Array(acc.data),
    };
  }

  /** Sets an account outside any transaction (null: removes it; litesvm drops a zero-lamport account). */
  private writeAccount(address: string, state: AccountState | null): void {
    this.svm.setAccount({
      address: toAddress(address),
      lamports: toLamports(state?.lamports ?? 0n),
      programAddress: toAddress(state?.owner ?? SYSTEM_PROGRAM),
      data: state?.data ?? new Uint8Array(0),
      executable: state?.executable ?? false,
      space: BigInt(state?.data.length ?? 0),
    });
  }

  /** Genesis-like allocation outside any transaction: kept by saves, not undone by reorgs. */
  setAccount(address: string, state: AccountState): void {
    this.writeAccount(address, state);
    this.touched.add(address);
    this.indexTokenAccounts([address]);
  }

  /** Genesis allocation: sets an account's lamports outside any transaction. */
  fund(address: string, lamports: bigint): void {
    this.setAccount(address, { lamports, owner: SYSTEM_PROGRAM, executable: false, data: new Uint8Array(0) });
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
      if (!acc || !isTokenProgram(acc.programAddress)) return;
      const t = decodeTokenAccount(acc.data);
      if (!t) return;
      out.push({
        accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: acc.programAddress,
        uiTokenAmount: uiTokenAmount(t.amount, this.mintDecimals(t.mint)),
      });
    });
    return out;
  }

  private indexTokenAccounts(keys: string[]): void {
    for (const key of keys) {
      const acc = this.account(key);
      const t = acc && isTokenProgram(acc.programAddress) ? decodeTokenAccount(acc.data) : null;
      if (t && acc) this.tokenAccounts.set(key, { ...t, program: acc.programAddress });
      else this.tokenAccounts.delete(key);
    }
  }

  /**
   * The accounts a transaction can write: its writable static keys, then the writable addresses its
   * lookup tables load (a table that is missing or too short is left to the SVM to refuse).
   */
  private writableAccounts(wire: WireTransaction): string[] {
    const m = wire.message;
    const out = m.accountKeys.filter((_k, i) => isWritable(m, i));
    for (const lookup of m.lookups) {
      const table = this.account(lookup.accountKey);
      if (!table || table.programAddress !== LOOKUP_TABLE_PROGRAM) continue;
      for (const i of lookup.writableIndexes) {
        const at = LOOKUP_TABLE_HEADER + 32 * i;
        if (at + 32 <= table.data.length) out.push(toBase58(table.data.subarray(at, at + 32)));
      }
    }
    return out;
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
    // Recorded before execution: what a reorg writes back.
    const writable = this.writableAccounts(wire);
    const undo: UndoEntry[] = [];
    for (const address of writable) {
      const before = this.accountState(address);
      if (before === null || restorable(before)) undo.push({ address, before });
    }
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
        fee: messageFee(wire.message),
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances: this.tokenBalances(keys),
        logMessages: m.logs(),
        computeUnitsConsumed: m.computeUnitsConsumed(),
      },
    };
    this.indexTokenAccounts([...keys, ...writable]);
    for (const k of keys) this.touched.add(k);
    for (const k of writable) this.touched.add(k);
    this.pendingUndo.push(...undo);
    this.txs.set(signature, record);
    this.pending.push(record);
    return record;
  }
}
