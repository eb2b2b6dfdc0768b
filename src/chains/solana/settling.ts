import type { ChainAdapter } from '../chain-adapter.ts';
import type { SendSettling } from '../family.ts';
import { SolanaAdapter } from './adapter.ts';

/**
 * A Solana send cut off before the node answered: the node knows its signature once the transaction is
 * processed. One it never had cannot land once its blockhash is too old (150 blocks, about a minute and
 * a half); three minutes leave slow slots a margin.
 *
 * A send ends once its slot is finalized: SUCCESS, or FAILED with the error it ran into (its fee is paid
 * either way). Before that, a fork may still drop it.
 */
export const solanaSettling: SendSettling = {
  graceMs: 3 * 60_000,
  known: async (adapter, txid) => (await solanaAdapter(adapter).signatureStatus(txid)) !== null,
  outcome: async (adapter, txid) => {
    const status = await solanaAdapter(adapter).signatureStatus(txid);
    if (status === null || status.confirmationStatus !== 'finalized')
      return { status: 'PENDING', reason: null };
    if (status.err === null) return { status: 'SUCCESS', reason: null };
    return { status: 'FAILED', reason: `failed on chain: ${errorText(status.err)}` };
  },
};

function solanaAdapter(adapter: ChainAdapter): SolanaAdapter {
  if (!(adapter instanceof SolanaAdapter))
    throw new Error(`${adapter.chain} is not served by a Solana adapter`);
  return adapter;
}

/** The node's error as text: a name (`AccountNotFound`), or its JSON (`{"InstructionError":[0,...]}`). */
export function errorText(err: unknown): string {
  return typeof err === 'string'
    ? err
    : JSON.stringify(err, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}
