/**
 * A Solana request's fields read as the chain needs them. A schema pattern sees base58 text of the right
 * length; only decoding tells whether it holds 32 bytes (an address) or 64 (a signature). A field that
 * does not is a 422 naming it.
 */
import { invalidField } from '../../errors.ts';
import { boundedAmountField } from '../amount-field.ts';
import { SYSTEM_PROGRAM } from './block-transfers.ts';
import { fromBase58 } from './codec.ts';
import { COMPUTE_BUDGET_PROGRAM } from './fees.ts';
import { isSolanaAddress } from './keys.ts';

/** The largest u64: every lamport and token amount, and every slot, is one on Solana. */
export const U64_MAX = 2n ** 64n - 1n;

/**
 * Programs a SOL transfer invokes. The runtime refuses a transaction that also writes to an invoked
 * program, and a transfer writes to its receiver.
 */
const INVOKED_BY_SOL_TRANSFERS: ReadonlySet<string> = new Set([SYSTEM_PROGRAM, COMPUTE_BUDGET_PROGRAM]);

export function addressField(field: string, value: string): string {
  if (!isSolanaAddress(value)) {
    throw invalidField(field, `The ${field} field must be a Solana address (32 bytes in base58).`);
  }
  return value;
}

/** The receiver of a SOL transfer: an address, and none of the programs the transfer itself invokes. */
export function solReceiverField(value: string): string {
  const to = addressField('to', value);
  if (INVOKED_BY_SOL_TRANSFERS.has(to)) {
    throw invalidField(
      'to',
      'The to field is a program the transfer runs (the System Program or Compute Budget), which cannot receive SOL.',
    );
  }
  return to;
}

export function signatureField(field: string, value: string): string {
  if (fromBase58(value)?.length !== 64) {
    throw invalidField(field, `The ${field} field must be a transaction signature (64 bytes in base58).`);
  }
  return value;
}

/** An amount in base units that fits the chain's u64, or a 422 on the amount field. */
export function amountOf(raw: unknown, decimals: number): bigint {
  return boundedAmountField(
    raw,
    decimals,
    U64_MAX,
    (most) => `The amount field is too large: Solana amounts are at most ${most} (2^64 - 1 base units).`,
  );
}

/** A slot (block number) the chain can have: below 2^64, or a 422 on `field`. */
export function slotField(field: string, value: string): bigint {
  const slot = /^[0-9]{1,20}$/.test(value) ? BigInt(value) : null;
  if (slot === null || slot > U64_MAX) {
    throw invalidField(field, `The ${field} field must be a slot number below 2^64.`);
  }
  return slot;
}
