import type { ChainAdapter } from '../chain-adapter.ts';
import type { SendSettling } from '../family.ts';
import { TronAdapter } from './adapter.ts';

/**
 * A Tron send cut off before the node answered: the node knows its transaction once a block holds it. One
 * the node never had cannot land past its expiration (a minute after the node built it), nor can one its
 * pool dropped; two minutes leave the block that may still carry it time to be read.
 *
 * A send ends once a block holds it (the node has its transaction info): SUCCESS, or FAILED with the
 * contract's result (REVERT, OUT_OF_ENERGY ...).
 */
export const tronSettling: SendSettling = {
  graceMs: 2 * 60_000,
  known: async (adapter, txid) => (await tronAdapter(adapter).getTransaction(txid)) !== null,
  outcome: async (adapter, txid) => {
    const info = await tronAdapter(adapter).getTransactionInfo(txid);
    if (info === null || info['blockNumber'] === undefined) return { status: 'PENDING', reason: null };
    const receipt = info['receipt'];
    const result =
      typeof receipt === 'object' && receipt !== null && 'result' in receipt ? String(receipt.result) : null;
    if (info['result'] !== 'FAILED' && (result === null || result === 'SUCCESS'))
      return { status: 'SUCCESS', reason: null };
    return { status: 'FAILED', reason: result ?? 'FAILED' };
  },
};

function tronAdapter(adapter: ChainAdapter): TronAdapter {
  if (!(adapter instanceof TronAdapter)) throw new Error(`${adapter.chain} is not served by a Tron adapter`);
  return adapter;
}
