/**
 * What a send costs its wallet, and the refusals before signing. The node's estimate runs the external
 * message against the wallet as it is (its signature unchecked): the import fee, the storage due, the gas
 * and the forwarding of the messages it sends, all paid from the wallet's balance beside the value sent
 * (PAY_GAS_SEPARATELY). A jetton transfer sends TON to the jetton wallets for their gas; what they leave
 * comes back.
 */
import { ApiError } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import { NANOTON_DECIMALS } from './block-transfers.ts';

/** The node's estimate of what the sender's wallet pays (toncenter's `source_fees`), in nanotons. */
export interface SourceFees {
  inForward: bigint;
  storage: bigint;
  gas: bigint;
  forward: bigint;
}

export const ton = (nanotons: bigint) => formatAmount(nanotons, NANOTON_DECIMALS);

/**
 * TON a jetton transfer sends to the sender's jetton wallet, as wallets attach it: the two jetton
 * wallets' gas and the forward; the unspent part returns to the sender.
 */
export const JETTON_TRANSFER_ATTACHED = 50_000_000n;

/** TON forwarded to the receiver with the jetton transfer's notification (and its comment). */
export const JETTON_FORWARD_AMOUNT = 1n;

/** The fee of one send: everything the wallet pays besides the value it sends. */
export function sendFee(fees: SourceFees): bigint {
  return fees.inForward + fees.storage + fees.gas + fees.forward;
}

/**
 * Refuses a TON transfer the wallet cannot pay: the amount and the fee, against its balance. `fee` is
 * null before the node has estimated it (the first check, which spares the estimate a hopeless send).
 */
export function assertTonCovers(from: string, balance: bigint, amount: bigint, fee: bigint | null): void {
  const needed = amount + (fee ?? 0n);
  if (balance < needed) {
    const parts = fee === null ? 'before its fee' : `${ton(amount)} TON and a fee of ${ton(fee)} TON`;
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${ton(balance)} TON, and the transfer needs ${ton(needed)} TON (${parts})`,
    );
  }
}

/** Refuses a jetton transfer whose wallet cannot pay the TON it attaches and the fee (null: not estimated yet). */
export function assertJettonGasCovered(
  from: string,
  balance: bigint,
  attached: bigint,
  fee: bigint | null,
): void {
  const needed = attached + (fee ?? 0n);
  if (balance < needed) {
    const feePart = fee === null ? 'before its fee' : `and a fee of ${ton(fee)} TON`;
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${ton(balance)} TON, and the jetton transfer needs ${ton(needed)} TON (${ton(attached)} TON attached for the jetton wallets' gas, the unspent part returned, ${feePart})`,
    );
  }
}

/** Refuses a jetton transfer of more than the sender's jetton wallet holds. */
export function assertJettonsCover(
  from: string,
  master: string,
  held: bigint,
  units: bigint,
  decimals: number,
): void {
  if (held < units) {
    const amount = (value: bigint) => formatAmount(value, decimals);
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${amount(held)} of jetton ${master}, and the transfer needs ${amount(units)}`,
    );
  }
}
