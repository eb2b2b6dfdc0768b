import type { ChainAdapter } from '../chain-adapter.ts';
import type { SendSettling } from '../family.ts';
import { BitcoinAdapter } from './adapter.ts';

/** How long after it was signed a send the node does not know is taken as never sent, or dropped. */
const GRACE_MS = 5 * 60_000;

/**
 * A Bitcoin send cut off before the node answered: the node knows its transaction in its mempool or in
 * a block. One that is in neither five minutes after it was signed was never broadcast (a live request
 * has had its answer long before), and its coins are still unspent.
 *
 * A send ends SUCCESS once a block holds it. One the node no longer knows past the same grace was
 * replaced by a transaction spending the same coins, or dropped from the mempool: nothing rebroadcasts
 * it, so it ends FAILED.
 */
export const bitcoinSettling: SendSettling = {
  graceMs: GRACE_MS,
  known: async (adapter, txid) => (await bitcoinAdapter(adapter).backend.transaction(txid)) !== null,
  outcome: async (adapter, txid, ageMs) => {
    const tx = await bitcoinAdapter(adapter).backend.transaction(txid);
    if (tx?.status.confirmed) return { status: 'SUCCESS', reason: null };
    if (tx !== null || ageMs < GRACE_MS) return { status: 'PENDING', reason: null };
    return {
      status: 'FAILED',
      reason:
        'dropped by the node: never confirmed (replaced by a transaction spending the same coins, or evicted)',
    };
  },
};

function bitcoinAdapter(adapter: ChainAdapter): BitcoinAdapter {
  if (!(adapter instanceof BitcoinAdapter))
    throw new Error(`${adapter.chain} is not served by a Bitcoin adapter`);
  return adapter;
}
