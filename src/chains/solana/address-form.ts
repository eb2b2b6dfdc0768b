import type { AddressForm } from '../family.ts';
import { isSolanaAddress } from './keys.ts';

/** A Solana address: a 32-byte public key (or program-derived address) in base58. */
export const solanaAddressForm: AddressForm = {
  pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  description: 'Solana address: a 32-byte public key in base58',
  example: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
  isValid: isSolanaAddress,
  // Base58 text of the right length can still decode to 31 or 33 bytes.
  fieldProblem: (field, value) =>
    typeof value === 'string' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value) && !isSolanaAddress(value)
      ? `The ${field} field must be a Solana address (32 bytes in base58).`
      : null,
  canonical: (address) => address,
};
