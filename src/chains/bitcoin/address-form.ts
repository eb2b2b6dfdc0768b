import type { AddressForm } from '../family.ts';
import { canonicalAddress, isBitcoinAddress } from './address.ts';

/**
 * Bech32(m) of mainnet, test networks and regtest in one case (lower or upper, as BIP-173 allows), or
 * base58 P2PKH/P2SH (1, 3; m, n, 2 off mainnet). The checksum is isValid's and fieldProblem's to check.
 */
const PATTERN =
  '^((bc|tb|bcrt)1[ac-hj-np-z02-9]{8,87}|(BC|TB|BCRT)1[AC-HJ-NP-Z02-9]{8,87}|[13mn2][1-9A-HJ-NP-Za-km-z]{25,34})$';
const SHAPE = new RegExp(PATTERN);

/** A Bitcoin address of any type: P2WPKH, P2WSH, P2TR, P2PKH or P2SH. */
export const bitcoinAddressForm: AddressForm = {
  pattern: PATTERN,
  description: 'Bitcoin address: bech32 (bc1…, tb1…, bcrt1…) or base58 (1…, 3…; m…, n…, 2… on test networks)',
  example: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  isValid: isBitcoinAddress,
  // The pattern sees the alphabet and length; only decoding sees a mistyped character.
  fieldProblem: (field, value) =>
    typeof value === 'string' && SHAPE.test(value) && !isBitcoinAddress(value)
      ? `The ${field} field must be a Bitcoin address with a valid checksum.`
      : null,
  canonical: canonicalAddress,
};
