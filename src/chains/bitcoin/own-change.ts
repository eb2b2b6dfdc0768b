/**
 * The unconfirmed coins a send may spend: change this gateway made. A coin is the source's own change when
 * the transaction that made it is one a send of this gateway broadcast (its reservations name it as their
 * spending_txid) spending coins of the same source, and the coin is at one of the source's addresses. Such
 * a transaction only its own custody can replace, so its change is as safe to spend as the wallet's own
 * (Bitcoin Core, Electrum and BTCPay spend their unconfirmed change too). Any other unconfirmed coin, a
 * payment from someone else included, its sender can still replace or double-spend: it waits for a block.
 */
import type { ApiError } from '../../errors.ts';
import { canonicalAddress } from './address.ts';
import type { BitcoinBackend } from './backend.ts';
import type { Coin } from './coin-selection.ts';
import type { FeeRate } from './fee-rate.ts';
import { ancestorShortfall } from './package-fee.ts';
import { chainTooLong, type UnconfirmedTx, unconfirmedAncestry } from './unconfirmed-chain.ts';

/** The own unconfirmed coins of a source, each priced with what its ancestors lack (Coin.ancestorFee). */
export interface OwnChange {
  /** Largest first. */
  coins: Coin[];
  isOwn(coin: Coin): boolean;
  /** The 422 when a transaction of `vsize` spending `inputs` would break the mempool's chain limits. */
  chainProblem(inputs: readonly Coin[], vsize: number): ApiError | null;
}

export interface OwnChangeQuery {
  backend: BitcoinBackend;
  /** Of these txids, those this gateway broadcast, with the addresses of the coins each spent. */
  broadcastBy(txids: readonly string[]): Promise<Map<string, string[]>>;
  /** The source's addresses. */
  source: readonly string[];
  /** The source's unconfirmed coins, as the node lists them. */
  unconfirmed: readonly Coin[];
  rate: FeeRate;
}

const keyOf = (coin: { txid: string; vout: number }) => `${coin.txid}:${coin.vout}`;

export async function ownUnconfirmedChange(query: OwnChangeQuery): Promise<OwnChange> {
  const ancestries = new Map<string, Map<string, UnconfirmedTx>>();
  const coins: Coin[] = [];
  if (query.unconfirmed.length > 0) {
    const broadcast = await query.broadcastBy(query.unconfirmed.map((coin) => coin.txid));
    const source = new Set(query.source.map(canonicalAddress));
    const fromSource = (txid: string) =>
      broadcast.get(txid)?.some((address) => source.has(canonicalAddress(address))) === true;
    for (const coin of query.unconfirmed) {
      if (!source.has(canonicalAddress(coin.address)) || !fromSource(coin.txid)) continue;
      if (!ancestries.has(coin.txid)) {
        const ancestry = await unconfirmedAncestry(query.backend, coin.txid);
        // Dropped or replaced meanwhile, or of unknown fee: not spent.
        if (ancestry === null) continue;
        ancestries.set(coin.txid, ancestry);
      }
      const ancestry = ancestries.get(coin.txid)!;
      coins.push({ ...coin, ancestorFee: ancestorShortfall(ancestry.values(), query.rate) });
    }
  }
  coins.sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1));
  const own = new Set(coins.map(keyOf));
  return {
    coins,
    isOwn: (coin) => own.has(keyOf(coin)),
    chainProblem(inputs, vsize) {
      const union = new Map<string, UnconfirmedTx>();
      for (const input of inputs) {
        for (const [txid, tx] of ancestries.get(input.txid) ?? []) union.set(txid, tx);
      }
      return union.size === 0 ? null : chainTooLong(union, vsize);
    },
  };
}
