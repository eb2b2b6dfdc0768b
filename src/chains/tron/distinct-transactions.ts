import { tronweb } from './tronweb.ts';
import type { TronTransaction } from './types.ts';

/**
 * java-tron stamps a built transaction with the millisecond it built it, so two identical transfers built
 * in the same millisecond are one transaction: the second broadcast is the first's duplicate, both sends
 * would be answered with one txid, and only one transfer lands. Each send's transaction is made its own
 * here: one whose id this process already built, and which has not yet expired, is stamped a millisecond
 * later until its id is new.
 */
export class DistinctTransactions {
  /** The ids built, with their expiration (ms); built in order, so they expire in about that order. */
  readonly #built = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async distinct(tx: TronTransaction): Promise<TronTransaction> {
    // Loaded before the check: from the check to the id's entry nothing may wait, or two sends at once
    // would restamp to the same id.
    const utils = await tronweb();
    this.#forgetExpired();
    let own = tx;
    while (this.#built.has(own.txID)) own = restampedWith(utils, own, own.raw_data.timestamp + 1);
    this.#built.set(own.txID, own.raw_data.expiration);
    return own;
  }

  #forgetExpired(): void {
    const now = this.now();
    for (const [txid, expiration] of this.#built) {
      if (expiration > now) return;
      this.#built.delete(txid);
    }
  }
}

/** `tx` with another timestamp: its raw_data_hex and id computed again, as tronweb's builder does. */
function restampedWith(
  utils: Awaited<ReturnType<typeof tronweb>>,
  tx: TronTransaction,
  timestamp: number,
): TronTransaction {
  const copy = { ...tx, raw_data: { ...tx.raw_data, timestamp } };
  const pb = utils.transaction.txJsonToPb(copy);
  return {
    ...copy,
    txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, ''),
    raw_data_hex: utils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
}
