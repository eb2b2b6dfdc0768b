import type { AddressForm } from '../family.ts';
import { isSolanaAddress } from './keys.ts';

const PATTERN = '^[1-9A-HJ-NP-Za-km-z]{32,44}$';

/**
 * A Solana address: a 32-byte public key (or program-derived address) in base58, alike on every network.
 * It carries no checksum: a mistyped character mostly gives another valid address, so what can be checked
 * is the alphabet, the length and that the text decodes to 32 bytes.
 */
export const solanaAddressForm: AddressForm = {
  family: 'solana',
  pattern: PATTERN,
  description:
    'Solana address: a 32-byte public key in base58 (it has no checksum: a mistyped character is mostly another valid address)',
  example: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
  isValid: isSolanaAddress,
  // Base58 text of the right length can still decode to 31 or 33 bytes.
  fieldProblem: (field, value) =>
    isSolanaAddress(value) ? null : `The ${field} field must be a Solana address (32 bytes in base58).`,
  canonical: (address) => address,
};
