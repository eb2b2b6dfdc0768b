/**
 * Sends from one address still in flight, counted against what it holds. The node's preflight judges a
 * transaction against a bank that does not hold the sends not yet in a block: several sends from one
 * address within a slot each pass it, and the last to run fails on chain (its fee charged) after the
 * gateway answered 201 for it. So sends from one address go one at a time through this process, and each
 * is judged against the `processed` balance less the sends this process made that are in no block yet.
 * A send is kept until `confirmed` (or its blockhash expired): one whose block a fork drops counts again.
 *
 * Kept in this process's memory: sends of one address made through two gateway instances at once are
 * each judged by the node's preflight alone.
 */
import { ApiError } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import { OneAtATime } from '../one-at-a-time.ts';
import { LAMPORTS_DECIMALS, type SolanaAdapter } from './adapter.ts';
import { decodeTokenAccount } from './token-accounts.ts';

/** What a send takes from its sender at most. */
export interface Spend {
  /** The amount sent (SOL), the fee, the rent of a token account it opens. */
  lamports: bigint;
  /** An SPL transfer: the sender's token account, the mint and its units. */
  token: { account: string; mint: string; units: bigint; decimals: number } | null;
  /** The rent-exempt minimum a sender left with lamports must keep. */
  rentMinimum: bigint;
}

interface Sent {
  txid: string;
  spend: Spend;
  /** Past this block height its blockhash is too old: it never lands. */
  lastValidBlockHeight: bigint;
}

export class SendsInFlight {
  readonly #lanes = new OneAtATime();
  readonly #sent = new Map<string, Sent[]>();

  /**
   * Broadcasts a send of `from` once the sends before it from the same address have been broadcast, and
   * refuses it (422) when, with those the `processed` balance does not show yet, it does not fit.
   */
  send(
    adapter: SolanaAdapter,
    from: string,
    spend: Spend,
    lastValidBlockHeight: bigint,
    broadcast: () => Promise<string>,
  ): Promise<string> {
    const key = `${adapter.network}:${from}`;
    return this.#lanes.run(key, async () => {
      const inFlight = await this.#unconfirmed(adapter, key);
      if (inFlight !== null) await refuseUnaffordable(adapter, from, spend, inFlight);
      const txid = await broadcast();
      this.#sent.set(key, [...(this.#sent.get(key) ?? []), { txid, spend, lastValidBlockHeight }]);
      return txid;
    });
  }

  /**
   * The sends of `key` not confirmed yet, null when there are none (the build's own checks then stand);
   * of those, the ones the `processed` balance does not show: in no block, their blockhash still valid.
   * Read before the balance: a send that lands in between is counted twice, never not at all.
   */
  async #unconfirmed(adapter: SolanaAdapter, key: string): Promise<Spend[] | null> {
    const sent = this.#sent.get(key) ?? [];
    if (sent.length === 0) return null;
    const [statuses, height] = await Promise.all([
      adapter.confirmations(sent.map((s) => s.txid)),
      adapter.blockHeight(),
    ]);
    const kept = sent
      .map((send, i) => ({ send, status: statuses[i] ?? null }))
      .filter(({ send, status }) =>
        status === null ? send.lastValidBlockHeight >= height : status === 'processed',
      );
    if (kept.length === 0) {
      this.#sent.delete(key);
      return null;
    }
    this.#sent.set(
      key,
      kept.map(({ send }) => send),
    );
    return kept.filter(({ status }) => status === null).map(({ send }) => send.spend);
  }
}

const sol = (lamports: bigint) => formatAmount(lamports, LAMPORTS_DECIMALS);

/** The send against what `from` holds now, less what its sends in flight take. */
async function refuseUnaffordable(
  adapter: SolanaAdapter,
  from: string,
  spend: Spend,
  inFlight: Spend[],
): Promise<void> {
  const token = spend.token;
  const [balance, held] = await Promise.all([
    adapter.getBalance(from, 'processed'),
    token === null ? null : adapter.getAccount(token.account, 'processed'),
  ]);
  const lamportsInFlight = inFlight.reduce((sum, s) => sum + s.lamports, 0n);
  const free = balance - lamportsInFlight;
  if (free < spend.lamports) {
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${sol(balance)} SOL${taken(lamportsInFlight, sol, ' SOL')}, and the transfer needs ${sol(spend.lamports)} SOL`,
    );
  }
  const left = free - spend.lamports;
  if (left > 0n && left < spend.rentMinimum) {
    throw new ApiError(
      422,
      `The transfer would leave ${from} with ${sol(left)} SOL${lamportsInFlight > 0n ? ' once its sends in flight land' : ''}, below the rent-exempt minimum of ${sol(spend.rentMinimum)} SOL`,
    );
  }
  if (token === null) return;
  const units = held === null ? 0n : (decodeTokenAccount(held.owner, held.data)?.amount ?? 0n);
  const unitsInFlight = inFlight.reduce(
    (sum, s) => (s.token?.account === token.account ? sum + s.token.units : sum),
    0n,
  );
  if (units - unitsInFlight < token.units) {
    const amount = (value: bigint) => formatAmount(value, token.decimals);
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${amount(units)} of token ${token.mint} in its associated token account${taken(unitsInFlight, amount, '')}, and the transfer needs ${amount(token.units)}`,
    );
  }
}

/** The words for what sends in flight take of a balance; none when they take nothing. */
function taken(inFlight: bigint, format: (value: bigint) => string, unit: string): string {
  return inFlight > 0n ? `, ${format(inFlight)}${unit} of it taken by sends in flight` : '';
}
