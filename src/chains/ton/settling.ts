import type { ChainAdapter } from '../chain-adapter.ts';
import type { SendSettling, SentOutcome } from '../family.ts';
import { decodedTransfers, transactionStatus } from './decoded-transaction.ts';
import { ton } from './reads.ts';
import type { TonTransaction } from './toncenter.ts';

/**
 * How long after its intent a send's external message can still land: past its valid-until, which a
 * send sets under a minute ahead and a build ten minutes ahead (a signed build may be broadcast late),
 * with a minute's margin.
 */
const GRACE_MS = 11 * 60_000;

/**
 * A TON send is known by its external message's normalized hash (TEP-467), its txid: the indexer knows
 * it once a block holds the wallet's transaction it started. An external message that no block took
 * cannot land after its valid-until time, which the sends and builds set inside the grace.
 *
 * A send ends once its wallet's transaction is in a block (final at once) and every message it sent has
 * landed: SUCCESS; FAILED when the wallet refused the transfer (its action phase failed), or a payment
 * bounced back, or a jetton transfer was refused by the jetton wallet.
 */
export const tonSettling: SendSettling = {
  graceMs: GRACE_MS,
  known: async (adapter, txid) => (await walletTransaction(adapter, txid)) !== null,
  outcome: async (adapter, txid, ageMs): Promise<SentOutcome> => {
    const tx = await walletTransaction(adapter, txid);
    if (tx === null) {
      return ageMs > GRACE_MS
        ? { status: 'FAILED', reason: 'the message expired without reaching a block' }
        : { status: 'PENDING', reason: null };
    }
    const status = transactionStatus(tx);
    if (status !== 'success') {
      return {
        status: 'FAILED',
        reason: `the wallet's transaction ${status} (exit code ${tx.exitCode ?? 'none'}, action result ${tx.actionResultCode ?? 'none'})`,
      };
    }
    const node = ton(adapter);
    const sent = (await decodedTransfers(tx, node.toncenter, node.jettons, node.network)).filter(
      (transfer) => transfer.direction === 'out',
    );
    if (sent.some((transfer) => transfer.bounced === null)) return { status: 'PENDING', reason: null };
    const bounced = sent.find((transfer) => transfer.bounced === true);
    if (bounced !== undefined) {
      return { status: 'FAILED', reason: `the ${bounced.type} transfer to ${bounced.to} bounced back` };
    }
    return { status: 'SUCCESS', reason: null };
  },
};

async function walletTransaction(adapter: ChainAdapter, txid: string): Promise<TonTransaction | null> {
  const found = await ton(adapter).toncenter.transactionsByMessage(txid, 'in');
  return found[0] ?? null;
}
