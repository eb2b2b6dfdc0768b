// One transaction as both fronts see it: the transaction, the coins it spent, its fee and its block
// (null in the mempool), found in the best chain or the mempool.
import type { Transaction } from 'bitcoinjs-lib';
import type { Block } from './block.ts';
import type { BitcoinChain, Coin } from './chain.ts';

export interface TxView {
  tx: Transaction;
  txid: string;
  prevouts: Coin[];
  fee: bigint;
  block: Block | null;
  /** Unix seconds it entered the mempool (mempool only). */
  time: number | null;
}

export function findTx(chain: BitcoinChain, txid: string): TxView | null {
  const confirmed = chain.confirmed(txid);
  if (confirmed) return { ...confirmed, time: null };
  const entry = chain.mempool.get(txid);
  if (entry)
    return { tx: entry.tx, txid, prevouts: entry.prevouts, fee: entry.fee, block: null, time: entry.time };
  return null;
}
