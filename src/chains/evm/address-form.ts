import type { AddressForm } from '../family.ts';
import { checksumAddress, evmAddressFieldMessage, isEvmAddress } from './keys.ts';

/** An EVM address as requests carry it (any case; a mixed case one must be a valid EIP-55 checksum). */
export const evmAddressForm: AddressForm = {
  family: 'evm',
  pattern: '^(0x)?[0-9a-fA-F]{40}$',
  description: 'EVM address: lower case, upper case, or mixed case with a valid EIP-55 checksum',
  example: '0x52908400098527886E0F7030069857D2E4169EE7',
  isValid: isEvmAddress,
  // The same on every network and every EVM chain.
  fieldProblem: (field, value) => evmAddressFieldMessage(field, value),
  canonical: checksumAddress,
};
