// The chain: blocks of the best chain (and stale ones, still readable), the UTXO set and its spends, the
// transaction and address indexes built from the blocks, and the mempool with Core's acceptance rules.
// The blocks are the truth: every index is rebuilt from them after a reorg or a load.
import { Transaction } from 'bitcoinjs-lib';
import {
  type Block,
  blockWork,
  displayHex,
  dsha256,
  headerHash,
  medianTime,
  merkleRoot,
  wtxidOf,
} from './block.ts';
import {
  formatMoney,
  RPC_DESERIALIZATION_ERROR,
  RPC_TRANSACTION_ALREADY_IN_CHAIN,
  RPC_TRANSACTION_ERROR,
  RpcError,
  rejected,
} from './errors.ts';
import type { NetworkParams } from './networks.ts';
import { dustThreshold, scriptKind } from './script.ts';
import { type Prevout, verifyInput } from './verify.ts';

export const COIN = 100_000_000n;
export const BLOCK_REWARD = 50n * COIN;
export const COINBASE_MATURITY = 100;
export const DEVNET_BITS = 0x207fffff;
/** Core's default maxfeerate for sendrawtransaction (what electrs' POST /tx gets too): 0.10 BTC/kvB. */
export const DEFAULT_MAX_FEERATE_SATS_PER_KVB = 10_000_000n;
const MAX_MONEY = 21_000_000n * COIN;
const MAX_STANDARD_WEIGHT = 400_000;
const BIP125_FINAL = 0xfffffffe;
/** Core's default mempool package limits: 25 transactions in a chain, 101 kvB of ancestors. */
const MEMPOOL_CHAIN_LIMIT = 25;
const MEMPOOL_ANCESTOR_VSIZE_LIMIT = 101_000;

export interface Coin extends Prevout {
  txid: string;
  vout: number;
  /** The block that made it; null while its transaction is in the mempool. */
  height: number | null;
  coinbase: boolean;
}

export interface ConfirmedTx {
  tx: Transaction;
  txid: string;
  block: Block;
  /** The coins its inputs spent (empty for a coinbase). */
  prevouts: Coin[];
  fee: bigint;
}

export interface MempoolEntry {
  tx: Transaction;
  txid: string;
  wtxid: string;
  prevouts: Coin[];
  fee: bigint;
  vsize: number;
  weight: number;
  /** Unix seconds it entered. */
  time: number;
  /** The tip height when it entered. */
  height: number;
}

export interface Spend {
  txid: string;
  vin: number;
}

export interface ChainState {
  /** Blocks after genesis: header fields and raw transactions. */
  blocks: { version: number; time: number; bits: number; nonce: number; txs: string[] }[];
  mempool: { hex: string; time: number }[];
  extraNonce: number;
}

const outpoint = (txid: string, vout: number) => `${txid}:${vout}`;
const isNullPrevout = (tx: Transaction) =>
  tx.ins.length === 1 &&
  Buffer.from(tx.ins[0]?.hash ?? []).every((b) => b === 0) &&
  tx.ins[0]?.index === 0xffffffff;
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function decodeTransaction(hex: string): Transaction {
  const fail = () =>
    new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw fail();
  let tx: Transaction;
  try {
    tx = Transaction.fromHex(hex);
  } catch {
    throw fail();
  }
  if (tx.ins.length === 0) throw fail();
  return tx;
}

export class BitcoinChain {
  readonly blocks: Block[] = [];
  private readonly stale = new Map<string, Block>();
  private readonly byHash = new Map<string, Block>();
  private readonly txs = new Map<string, ConfirmedTx>();
  private readonly utxos = new Map<string, Coin>();
  private readonly spends = new Map<string, Spend>();
  /** Confirmed txids touching each output script (hex), oldest first. */
  private readonly scriptTxs = new Map<string, string[]>();
  readonly mempool = new Map<string, MempoolEntry>();
  private readonly mempoolSpends = new Map<string, string>();
  private extraNonce = 0;

  constructor(
    readonly params: NetworkParams,
    private readonly payoutScript: Uint8Array,
  ) {
    const coinbase = Transaction.fromHex(params.genesisCoinbase);
    const fields = {
      version: 1,
      prevHash: '0'.repeat(64),
      merkleRoot: coinbase.getId(),
      ...params.genesis,
    };
    const genesis: Block = { ...fields, height: 0, hash: headerHash(fields), txs: [coinbase] };
    if (genesis.hash !== params.genesisHash)
      throw new Error(`genesis of ${params.name} hashes to ${genesis.hash}`);
    this.connect(genesis);
  }

  get tip(): Block {
    return this.blocks[this.blocks.length - 1] as Block;
  }

  get height(): number {
    return this.blocks.length - 1;
  }

  block(hash: string): { block: Block; best: boolean } | null {
    const best = this.byHash.get(hash);
    if (best) return { block: best, best: true };
    const stale = this.stale.get(hash);
    return stale ? { block: stale, best: false } : null;
  }

  confirmed(txid: string): ConfirmedTx | undefined {
    return this.txs.get(txid);
  }

  utxo(txid: string, vout: number): Coin | undefined {
    return this.utxos.get(outpoint(txid, vout));
  }

  get utxoCount(): number {
    return this.utxos.size;
  }

  *unspentOf(script: Uint8Array): Generator<Coin> {
    const key = hexOf(script);
    for (const coin of this.utxos.values()) if (hexOf(coin.script) === key) yield coin;
  }

  /** Who spends an output: a confirmed transaction or one in the mempool. */
  spender(txid: string, vout: number): (Spend & { confirmed: boolean }) | null {
    const key = outpoint(txid, vout);
    const spend = this.spends.get(key);
    if (spend) return { ...spend, confirmed: true };
    const pending = this.mempoolSpends.get(key);
    if (!pending) return null;
    const entry = this.mempool.get(pending) as MempoolEntry;
    const vin = entry.tx.ins.findIndex((i) => displayHex(i.hash) === txid && i.index === vout);
    return { txid: pending, vin, confirmed: false };
  }

  scriptHistory(script: Uint8Array): string[] {
    return this.scriptTxs.get(hexOf(script)) ?? [];
  }

  /** Chain work up to and including `block` (best chain only). */
  chainWork(height: number): bigint {
    let work = 0n;
    for (let h = 0; h <= height; h++) work += blockWork((this.blocks[h] as Block).bits);
    return work;
  }

  medianTimePast(height: number): number {
    return medianTime(this.blocks.slice(Math.max(0, height - 10), height + 1).map((b) => b.time));
  }

  /** Coins the mempool adds that no other mempool transaction spends. */
  *mempoolCoins(): Generator<Coin> {
    for (const entry of this.mempool.values()) {
      for (const [vout, out] of entry.tx.outs.entries()) {
        if (this.mempoolSpends.has(outpoint(entry.txid, vout))) continue;
        yield { txid: entry.txid, vout, script: out.script, value: out.value, height: null, coinbase: false };
      }
    }
  }

  // ---- acceptance ----------------------------------------------------------------------------------

  /** Core's acceptance (sendrawtransaction, POST /tx); throws RpcError; `dryRun` leaves the mempool alone. */
  accept(tx: Transaction, now: number, dryRun = false): MempoolEntry {
    const txid = tx.getId();
    if (this.mempool.has(txid)) throw rejected('txn-already-in-mempool');
    if (this.txs.has(txid))
      throw new RpcError(RPC_TRANSACTION_ALREADY_IN_CHAIN, 'Transaction already in block chain');
    if (tx.outs.length === 0) throw rejected('bad-txns-vout-empty');
    if (isNullPrevout(tx)) throw rejected('coinbase');
    const seen = new Set<string>();
    for (const input of tx.ins) {
      const key = outpoint(displayHex(input.hash), input.index);
      if (seen.has(key)) throw rejected('bad-txns-inputs-duplicate');
      seen.add(key);
    }
    let valueOut = 0n;
    for (const out of tx.outs) {
      if (out.value < 0n) throw rejected('bad-txns-vout-negative');
      if (out.value > MAX_MONEY) throw rejected('bad-txns-vout-toolarge');
      valueOut += out.value;
    }
    if (valueOut > MAX_MONEY) throw rejected('bad-txns-txouttotal-toolarge');
    this.checkStandard(tx);
    if (!this.isFinal(tx)) throw rejected('non-final');

    // Conflicts: mempool transactions already spending one of these inputs.
    const conflicts = new Set<string>();
    for (const input of tx.ins) {
      const other = this.mempoolSpends.get(outpoint(displayHex(input.hash), input.index));
      if (other) conflicts.add(other);
    }
    for (const c of conflicts) {
      const entry = this.mempool.get(c) as MempoolEntry;
      if (!entry.tx.ins.some((i) => i.sequence < BIP125_FINAL)) throw rejected('txn-mempool-conflict');
    }

    const prevouts: Coin[] = [];
    for (const input of tx.ins) {
      const prevTxid = displayHex(input.hash);
      const coin =
        this.utxos.get(outpoint(prevTxid, input.index)) ??
        this.mempoolOutput(prevTxid, input.index, conflicts);
      if (!coin || this.conflictsSpendParent(conflicts, prevTxid)) {
        throw new RpcError(RPC_TRANSACTION_ERROR, 'bad-txns-inputs-missingorspent');
      }
      if (coin.coinbase && coin.height !== null) {
        const depth = this.height + 1 - coin.height;
        if (depth < COINBASE_MATURITY) {
          throw rejected(`bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth ${depth}`);
        }
      }
      prevouts.push(coin);
    }
    const valueIn = prevouts.reduce((sum, c) => sum + c.value, 0n);
    if (valueIn < valueOut) {
      throw rejected(
        `bad-txns-in-belowout, value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})`,
      );
    }
    const fee = valueIn - valueOut;
    const vsize = tx.virtualSize();
    const weight = tx.weight();
    const minFee = BigInt(vsize); // 1 sat/vB, Core's minrelaytxfee
    if (fee < minFee) throw rejected(`min relay fee not met, ${fee} < ${minFee}`);
    if (conflicts.size > 0) this.checkReplacement(txid, fee, vsize, conflicts);
    for (let i = 0; i < tx.ins.length; i++) {
      const reason = verifyInput(tx, i, prevouts);
      if (reason) throw rejected(reason);
    }
    this.checkChainLimits(prevouts, conflicts, vsize);

    const entry: MempoolEntry = {
      tx,
      txid,
      wtxid: wtxidOf(tx),
      prevouts,
      fee,
      vsize,
      weight,
      time: now,
      height: this.height,
    };
    if (dryRun) return entry;
    for (const c of conflicts) this.evict(c);
    this.mempool.set(txid, entry);
    for (const input of tx.ins) this.mempoolSpends.set(outpoint(displayHex(input.hash), input.index), txid);
    return entry;
  }

  private checkStandard(tx: Transaction): void {
    if (tx.version < 1 || tx.version > 3) throw rejected('version');
    if (tx.weight() > MAX_STANDARD_WEIGHT) throw rejected('tx-size');
    if (tx.byteLength(false) < 65) throw rejected('tx-size-small');
    let opReturns = 0;
    for (const out of tx.outs) {
      const kind = scriptKind(out.script);
      if (kind === 'unknown') throw rejected('scriptpubkey');
      if (kind === 'op_return') {
        if (out.script.length > 83) throw rejected('scriptpubkey');
        opReturns++;
        continue;
      }
      const dust = dustThreshold(out.script);
      if (dust !== null && out.value < dust) throw rejected('dust');
    }
    if (opReturns > 1) throw rejected('multi-op-return');
  }

  // The next block's height and median time past decide whether a locktime is over.
  private isFinal(tx: Transaction): boolean {
    if (tx.locktime === 0) return true;
    if (tx.ins.every((i) => i.sequence === 0xffffffff)) return true;
    const limit = tx.locktime < 500_000_000 ? this.height + 1 : this.medianTimePast(this.height);
    return tx.locktime < limit;
  }

  private mempoolOutput(txid: string, vout: number, conflicts: Set<string>): Coin | undefined {
    const entry = this.mempool.get(txid);
    const out = entry?.tx.outs[vout];
    const spender = this.mempoolSpends.get(outpoint(txid, vout));
    if (!out || (spender !== undefined && !conflicts.has(spender))) return undefined;
    return { txid, vout, script: out.script, value: out.value, height: null, coinbase: false };
  }

  // A replacement may not spend what it replaces (nor their descendants).
  private conflictsSpendParent(conflicts: Set<string>, parent: string): boolean {
    if (conflicts.size === 0) return false;
    for (const c of conflicts) if (this.descendants(c).has(parent)) return true;
    return false;
  }

  /** `txid` and every mempool transaction spending it, directly or not. */
  descendants(txid: string): Set<string> {
    const out = new Set<string>([txid]);
    const queue = [txid];
    while (queue.length > 0) {
      const id = queue.pop() as string;
      const entry = this.mempool.get(id);
      if (!entry) continue;
      for (let vout = 0; vout < entry.tx.outs.length; vout++) {
        const child = this.mempoolSpends.get(outpoint(id, vout));
        if (child && !out.has(child)) {
          out.add(child);
          queue.push(child);
        }
      }
    }
    return out;
  }

  // Core's package limits (-limitancestorcount/-limitancestorsize/-limitdescendantcount, defaults 25,
  // 101 kvB, 25), with its texts; what a replacement evicts does not count.
  private checkChainLimits(prevouts: Coin[], conflicts: Set<string>, vsize: number): void {
    const replaced = new Set<string>();
    for (const c of conflicts) for (const d of this.descendants(c)) replaced.add(d);
    const ancestors = new Set<string>();
    const queue = prevouts.filter((p) => p.height === null).map((p) => p.txid);
    while (queue.length > 0) {
      const id = queue.pop() as string;
      if (ancestors.has(id) || replaced.has(id)) continue;
      const entry = this.mempool.get(id);
      if (!entry) continue;
      ancestors.add(id);
      queue.push(...this.parents(entry));
    }
    if (ancestors.size + 1 > MEMPOOL_CHAIN_LIMIT) {
      throw rejected(
        `too-long-mempool-chain, too many unconfirmed ancestors [limit: ${MEMPOOL_CHAIN_LIMIT}]`,
      );
    }
    let size = vsize;
    for (const id of ancestors) size += (this.mempool.get(id) as MempoolEntry).vsize;
    if (size > MEMPOOL_ANCESTOR_VSIZE_LIMIT) {
      throw rejected(
        `too-long-mempool-chain, exceeds ancestor size limit [limit: ${MEMPOOL_ANCESTOR_VSIZE_LIMIT}]`,
      );
    }
    for (const id of ancestors) {
      const descendants = [...this.descendants(id)].filter((d) => !replaced.has(d));
      // descendants() counts the ancestor itself, as Core's descendant count does.
      if (descendants.length + 1 > MEMPOOL_CHAIN_LIMIT) {
        throw rejected(
          `too-long-mempool-chain, too many descendants for tx ${id} [limit: ${MEMPOOL_CHAIN_LIMIT}]`,
        );
      }
    }
  }

  /** Mempool parents of an entry. */
  parents(entry: MempoolEntry): string[] {
    return [...new Set(entry.prevouts.filter((p) => p.height === null).map((p) => p.txid))];
  }

  // BIP-125 rules 3, 4 and 6, with Core's texts.
  private checkReplacement(txid: string, fee: bigint, vsize: number, conflicts: Set<string>): void {
    const replaced = new Set<string>();
    for (const c of conflicts) for (const d of this.descendants(c)) replaced.add(d);
    for (const c of conflicts) {
      const old = this.mempool.get(c) as MempoolEntry;
      // new feerate <= old feerate, compared exactly: fee/vsize vs oldFee/oldVsize.
      if (fee * BigInt(old.vsize) <= old.fee * BigInt(vsize)) {
        throw rejected(
          `insufficient fee, rejecting replacement ${txid}; new feerate ${feeRateText(fee, vsize)} <= old feerate ${feeRateText(old.fee, old.vsize)}`,
        );
      }
    }
    let oldFees = 0n;
    for (const r of replaced) oldFees += (this.mempool.get(r) as MempoolEntry).fee;
    if (fee < oldFees) {
      throw rejected(
        `insufficient fee, rejecting replacement ${txid}, less fees than conflicting txs; ${formatMoney(fee)} < ${formatMoney(oldFees)}`,
      );
    }
    const required = BigInt(vsize); // incremental relay fee: 1 sat/vB of the replacement
    if (fee - oldFees < required) {
      throw rejected(
        `insufficient fee, rejecting replacement ${txid}, not enough additional fees to relay; ${formatMoney(fee - oldFees)} < ${formatMoney(required)}`,
      );
    }
  }

  private evict(txid: string): void {
    for (const id of this.descendants(txid)) {
      const entry = this.mempool.get(id);
      if (!entry) continue;
      this.mempool.delete(id);
      for (const input of entry.tx.ins)
        this.mempoolSpends.delete(outpoint(displayHex(input.hash), input.index));
    }
  }

  // ---- blocks ----------------------------------------------------------------------------------

  /** Mines one block: the mempool by feerate (parents first), and a coinbase paying reward + fees. */
  mine(now: number, payout: Uint8Array = this.payoutScript): Block {
    return this.mineWith(this.selectForBlock(), now, payout);
  }

  /** Mines a block holding only its coinbase, whatever waits in the mempool. */
  mineEmpty(now: number): Block {
    return this.mineWith([], now, this.payoutScript);
  }

  private mineWith(chosen: MempoolEntry[], now: number, payout: Uint8Array): Block {
    const fees = chosen.reduce((sum, e) => sum + e.fee, 0n);
    const height = this.height + 1;
    const coinbase = this.coinbase(height, BLOCK_REWARD + fees, chosen, payout);
    const txs = [coinbase, ...chosen.map((e) => e.tx)];
    const fields = {
      version: 0x20000000,
      prevHash: this.tip.hash,
      merkleRoot: displayHex(merkleRoot(txs.map((t) => t.getHash()))),
      time: Math.max(this.tip.time + 1, now),
      bits: DEVNET_BITS,
      nonce: 0,
    };
    const block: Block = { ...fields, height, hash: headerHash(fields), txs };
    for (const e of chosen) {
      this.mempool.delete(e.txid);
      for (const input of e.tx.ins) this.mempoolSpends.delete(outpoint(displayHex(input.hash), input.index));
    }
    this.connect(block);
    return block;
  }

  private selectForBlock(): MempoolEntry[] {
    const left = new Map(this.mempool);
    const chosen: MempoolEntry[] = [];
    while (left.size > 0) {
      let best: MempoolEntry | null = null;
      for (const entry of left.values()) {
        if (this.parents(entry).some((p) => left.has(p))) continue;
        if (!best || entry.fee * BigInt(best.vsize) > best.fee * BigInt(entry.vsize)) best = entry;
      }
      if (!best) break;
      chosen.push(best);
      left.delete(best.txid);
    }
    return chosen;
  }

  private coinbase(height: number, value: bigint, txs: MempoolEntry[], payout: Uint8Array): Transaction {
    const tx = new Transaction();
    tx.version = 2;
    // BIP-34: the height first; then an extra nonce, so a block mined again at a height (after a reorg)
    // has a coinbase of its own.
    const nonce = Buffer.alloc(4);
    nonce.writeUInt32LE(this.extraNonce++);
    tx.addInput(
      Buffer.alloc(32),
      0xffffffff,
      0xffffffff,
      Buffer.concat([heightPush(height), Buffer.from([4]), nonce]),
    );
    tx.addOutput(payout, value);
    if (txs.some((e) => e.tx.hasWitnesses())) {
      // BIP-141 commitment: the wtxid merkle root (the coinbase's counted as zero) with a zero reserved value.
      const reserved = Buffer.alloc(32);
      const root = merkleRoot([new Uint8Array(32), ...txs.map((e) => e.tx.getHash(true))]);
      const commitment = dsha256(Buffer.concat([root, reserved]));
      tx.addOutput(Buffer.concat([Buffer.from('6a24aa21a9ed', 'hex'), commitment]), 0n);
      tx.setWitness(0, [reserved]);
    }
    return tx;
  }

  private connect(block: Block): void {
    for (const tx of block.txs) {
      const txid = tx.getId();
      const coinbase = tx.isCoinbase();
      const prevouts: Coin[] = [];
      const touched = new Set<string>();
      if (!coinbase) {
        for (const [vin, input] of tx.ins.entries()) {
          const key = outpoint(displayHex(input.hash), input.index);
          const coin = this.utxos.get(key);
          if (!coin) throw new Error(`block ${block.height} spends the missing output ${key}`);
          this.utxos.delete(key);
          this.spends.set(key, { txid, vin });
          prevouts.push(coin);
          touched.add(hexOf(coin.script));
        }
      }
      for (const [vout, out] of tx.outs.entries()) {
        touched.add(hexOf(out.script));
        // The genesis coinbase is not spendable.
        if (block.height === 0 || scriptKind(out.script) === 'op_return') continue;
        this.utxos.set(outpoint(txid, vout), {
          txid,
          vout,
          script: out.script,
          value: out.value,
          height: block.height,
          coinbase,
        });
      }
      for (const script of touched) {
        const list = this.scriptTxs.get(script) ?? [];
        list.push(txid);
        this.scriptTxs.set(script, list);
      }
      const valueIn = prevouts.reduce((s, c) => s + c.value, 0n);
      const valueOut = tx.outs.reduce((s, o) => s + o.value, 0n);
      this.txs.set(txid, { tx, txid, block, prevouts, fee: coinbase ? 0n : valueIn - valueOut });
    }
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
  }

  /**
   * Drops the newest `depth` blocks (kept as stale), rebuilds the indexes from the rest, and offers their
   * transactions (unless `dropTransactions`), then the old mempool's, to the mempool again: those still
   * valid stay.
   */
  disconnect(depth: number, now: number, dropTransactions = false): void {
    if (depth < 1 || depth > this.height)
      throw new Error(`cannot reorg ${depth} blocks at height ${this.height}`);
    const dropped = this.blocks.slice(this.blocks.length - depth);
    const kept = this.blocks.slice(0, this.blocks.length - depth);
    const pending = dropTransactions
      ? []
      : dropped.flatMap((b) => b.txs.slice(1)).map((tx) => ({ tx, time: now }));
    for (const e of this.mempool.values()) pending.push({ tx: e.tx, time: e.time });
    for (const b of dropped) this.stale.set(b.hash, b);
    this.rebuild(kept);
    for (const p of pending) this.offer(p.tx, p.time);
  }

  private rebuild(blocks: Block[]): void {
    this.blocks.length = 0;
    this.byHash.clear();
    this.txs.clear();
    this.utxos.clear();
    this.spends.clear();
    this.scriptTxs.clear();
    this.mempool.clear();
    this.mempoolSpends.clear();
    for (const b of blocks) this.connect(b);
  }

  /** Accepts when valid, drops silently otherwise (a reorg's or a loaded snapshot's leftovers). */
  private offer(tx: Transaction, time: number): void {
    try {
      this.accept(tx, time);
    } catch {
      // no longer valid on this chain
    }
  }

  // ---- saving --------------------------------------------------------------------------------------

  exportState(): ChainState {
    return {
      blocks: this.blocks.slice(1).map((b) => ({
        version: b.version,
        time: b.time,
        bits: b.bits,
        nonce: b.nonce,
        txs: b.txs.map((t) => t.toHex()),
      })),
      mempool: [...this.mempool.values()].map((e) => ({ hex: e.tx.toHex(), time: e.time })),
      extraNonce: this.extraNonce,
    };
  }

  importState(state: ChainState): void {
    for (const saved of state.blocks) {
      const txs = saved.txs.map((h) => Transaction.fromHex(h));
      const fields = {
        version: saved.version,
        prevHash: this.tip.hash,
        merkleRoot: displayHex(merkleRoot(txs.map((t) => t.getHash()))),
        time: saved.time,
        bits: saved.bits,
        nonce: saved.nonce,
      };
      this.connect({ ...fields, height: this.height + 1, hash: headerHash(fields), txs });
    }
    for (const m of state.mempool) this.offer(Transaction.fromHex(m.hex), m.time);
    this.extraNonce = state.extraNonce;
  }
}

/** BIP-34's height push, as Core's CScript() << height writes it (OP_1..OP_16 for small heights). */
function heightPush(height: number): Buffer {
  if (height === 0) return Buffer.from([0x00]);
  if (height <= 16) return Buffer.from([0x50 + height]);
  const bytes: number[] = [];
  let n = height;
  while (n > 0) {
    bytes.push(n & 0xff);
    n >>>= 8;
  }
  if ((bytes[bytes.length - 1] as number) & 0x80) bytes.push(0);
  return Buffer.from([bytes.length, ...bytes]);
}

/** CFeeRate::ToString: BTC per kvB with 8 places. */
function feeRateText(fee: bigint, vsize: number): string {
  const perKvB = (fee * 1000n) / BigInt(vsize);
  const whole = perKvB / COIN;
  return `${whole}.${(perKvB % COIN).toString().padStart(8, '0')} BTC/kvB`;
}
