/**
 * Whether the sender can pay for a send and for its sends still in flight together. A node checks each
 * transaction against the balance alone: between blocks it takes several that together overdraw the
 * account and drops the last at mining, after the gateway answered 201 for it. So the nonce manager
 * sums, under the address's lock, what the signed transactions not yet mined can take, and refuses a send
 * that does not fit before it is signed. Pure: the balances are read by the caller.
 */
import type { Hex } from 'viem';
import { EvmInsufficientFundsError, EvmTokenTransferError } from './errors.ts';
import { checksumAddress } from './keys.ts';
import { transactionDecoder } from './transactions.ts';
import { decodeTransferCall } from './transfer-calls.ts';

/** The most a transaction can take from its sender. */
export interface Spend {
  /** Wei: the value plus the gas limit at the highest price the transaction allows. */
  coin: bigint;
  /** An ERC20 `transfer`: the token (lower case) and its units. */
  token: { contract: string; units: bigint } | null;
}

/** What the sender holds, read from the node after its nonce counts (so the same block or a newer one). */
export interface Holdings {
  coin: bigint;
  /** The balance of the send's token; null for a send that moves none. */
  token: bigint | null;
}

interface SpendFields {
  to?: string | null | undefined;
  value?: bigint | undefined;
  data?: Hex | undefined;
  gas?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  gasPrice?: bigint | undefined;
}

export function spendOf(tx: SpendFields): Spend {
  const fee = (tx.gas ?? 0n) * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n);
  const call = tx.to ? decodeTransferCall(tx.data ?? '0x') : null;
  return {
    coin: (tx.value ?? 0n) + fee,
    token:
      call?.standard === 'fungible' && tx.to ? { contract: tx.to.toLowerCase(), units: call.units } : null,
  };
}

/**
 * The spend of a signed transaction as the nonce store keeps it, read synchronously (inside the store's
 * transaction) once the decoder this awaits is loaded.
 */
export async function signedSpendReader(): Promise<(raw: Hex) => Spend> {
  const decode = await transactionDecoder();
  return (raw) => spendOf(decode(raw));
}

/**
 * Refuses `spend` when, with the sends in flight, it is more than the sender holds. With nothing in
 * flight the node's own answer to the transaction says the same thing in its words and is left to it.
 *
 * @throws EvmInsufficientFundsError (422, in geth's words with the sum in flight) for the coin;
 *   EvmTokenTransferError (422 `insufficient token balance ...`) for the token.
 */
export function refuseUnaffordable(holdings: Holdings, spend: Spend, inFlight: readonly Spend[]): void {
  const coinInFlight = inFlight.reduce((sum, s) => sum + s.coin, 0n);
  if (coinInFlight > 0n && coinInFlight + spend.coin > holdings.coin) {
    const overshot = coinInFlight + spend.coin - holdings.coin;
    throw new EvmInsufficientFundsError(
      `insufficient funds for gas * price + value: balance ${holdings.coin}, in flight ${coinInFlight}, tx cost ${spend.coin}, overshot ${overshot}`,
    );
  }
  const token = spend.token;
  if (token === null || holdings.token === null) return;
  const unitsInFlight = inFlight.reduce(
    (sum, s) => (s.token?.contract === token.contract ? sum + s.token.units : sum),
    0n,
  );
  if (unitsInFlight > 0n && unitsInFlight + token.units > holdings.token) {
    throw new EvmTokenTransferError(
      checksumAddress(token.contract),
      `insufficient token balance: balance ${holdings.token}, in flight ${unitsInFlight}, transfer ${token.units}`,
    );
  }
}
