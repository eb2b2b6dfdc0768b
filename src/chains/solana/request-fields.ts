/**
 * A Solana request's fields read as the chain needs them. A schema pattern sees base58 text of the right
 * length; only decoding tells whether it holds 32 bytes (an address) or 64 (a signature). A field that
 * does not is a 422 naming it.
 */
import { invalidField } from '../../errors.ts';
import { parseAmount } from '../amount.ts';
import { fromBase58 } from './codec.ts';
import { isSolanaAddress } from './keys.ts';

export function addressField(field: string, value: string): string {
  if (!isSolanaAddress(value)) {
    throw invalidField(field, `The ${field} field must be a Solana address (32 bytes in base58).`);
  }
  return value;
}

export function signatureField(field: string, value: string): string {
  if (fromBase58(value)?.length !== 64) {
    throw invalidField(field, `The ${field} field must be a transaction signature (64 bytes in base58).`);
  }
  return value;
}

export function amountOf(raw: unknown, decimals: number): bigint {
  try {
    return parseAmount(raw, decimals);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}
