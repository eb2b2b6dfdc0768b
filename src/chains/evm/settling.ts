import type { ChainAdapter } from '../chain-adapter.ts';
import type { SendSettling } from '../family.ts';
import { EvmAdapter } from './adapter.ts';
import { transactionOutcome } from './outcome.ts';

/**
 * An EVM send cut off before the node answered: the node knows its transaction in its pool or mined. The
 * nonce reconciler, which runs beside the settler, broadcasts every stored send the node lost again
 * (at start and every 30 s), so one the node still does not know three minutes on never will: its nonce
 * went to another transaction, or its stored copy was given up.
 *
 * A send ends once mined: SUCCESS, or FAILED when it reverted or a token transfer moved nothing
 * (outcome.ts). One the node dropped for good is failed by the nonce reconciler (dropped-sends.ts).
 */
export const evmSettling: SendSettling = {
  graceMs: 3 * 60_000,
  known: async (adapter, txid) => (await evmAdapter(adapter).getTransaction(txid)) !== null,
  outcome: async (adapter, txid) => {
    const evm = evmAdapter(adapter);
    const [tx, receipt] = await Promise.all([evm.getTransaction(txid), evm.getReceipt(txid)]);
    return transactionOutcome(tx, receipt);
  },
};

function evmAdapter(adapter: ChainAdapter): EvmAdapter {
  if (!(adapter instanceof EvmAdapter)) throw new Error(`${adapter.chain} is not served by an EVM adapter`);
  return adapter;
}
