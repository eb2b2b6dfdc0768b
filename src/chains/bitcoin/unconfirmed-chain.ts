/**
 * The unconfirmed ancestors of a coin, and the mempool's limits on them. Bitcoin Core (and every node on
 * its default policy) refuses a transaction with more than 25 unconfirmed transactions in its package
 * (itself and its ancestors), or whose package exceeds 101 kvB: a send spending unconfirmed change is
 * refused by the gateway before it would be refused by the node, with the reason.
 */
import { ApiError } from '../../errors.ts';
import type { BitcoinBackend } from './backend.ts';
import type { AncestorFee } from './package-fee.ts';

/** Core's default -limitancestorcount: the transaction and its unconfirmed ancestors. */
export const MEMPOOL_ANCESTOR_LIMIT = 25;
/** Core's default -limitancestorsize: 101 kvB of the transaction and its unconfirmed ancestors. */
export const MEMPOOL_ANCESTOR_VSIZE_LIMIT = 101_000;

/** An unconfirmed transaction of the chain: its id, fee and virtual size. */
export interface UnconfirmedTx extends AncestorFee {
  txid: string;
}

/**
 * The unconfirmed transaction `txid` and all its unconfirmed ancestors, by txid; empty when `txid` is
 * confirmed. Null when the node no longer knows `txid` (dropped, replaced), or does not tell the fee of
 * one of them: such a coin is not spent. An ancestor the node does not know is confirmed (Core without
 * -txindex reads only the mempool's transactions): a mempool transaction's parents are in the mempool or
 * in a block.
 */
export async function unconfirmedAncestry(
  backend: BitcoinBackend,
  txid: string,
): Promise<Map<string, UnconfirmedTx> | null> {
  const found = new Map<string, UnconfirmedTx>();
  const queue = [txid];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const id = queue.pop()!;
    const tx = await backend.transaction(id);
    if (tx === null && id !== txid) continue;
    if (tx === null || (!tx.status.confirmed && tx.fee === null)) return null;
    if (tx.status.confirmed) continue;
    found.set(tx.txid, { txid: tx.txid, vsize: tx.vsize, fee: tx.fee! });
    // The walk ends past the limit: a longer chain is refused whatever its length.
    if (found.size > MEMPOOL_ANCESTOR_LIMIT) break;
    for (const input of tx.inputs) {
      if (input.coinbase || seen.has(input.txid)) continue;
      seen.add(input.txid);
      queue.push(input.txid);
    }
  }
  return found;
}

/**
 * The 422 for a payment of `childVsize` spending outputs of `ancestors` (their union) that the mempool
 * would refuse; null when it fits.
 */
export function chainTooLong(
  ancestors: ReadonlyMap<string, AncestorFee>,
  childVsize: number,
): ApiError | null {
  const count = ancestors.size + 1;
  if (count > MEMPOOL_ANCESTOR_LIMIT) {
    return new ApiError(
      422,
      `Unconfirmed chain too long: the payment would have ${count - 1} unconfirmed ancestors, the mempool allows ${MEMPOOL_ANCESTOR_LIMIT - 1} (${MEMPOOL_ANCESTOR_LIMIT} with the payment); wait for the next block`,
    );
  }
  let vsize = childVsize;
  for (const ancestor of ancestors.values()) vsize += ancestor.vsize;
  if (vsize > MEMPOOL_ANCESTOR_VSIZE_LIMIT) {
    return new ApiError(
      422,
      `Unconfirmed chain too long: the payment and its unconfirmed ancestors would be ${vsize} vB, the mempool allows ${MEMPOOL_ANCESTOR_VSIZE_LIMIT} vB; wait for the next block`,
    );
  }
  return null;
}
