import type { AddressForm } from '../family.ts';
import { isTronAddress, toBase58Address } from './address.ts';

const PATTERN = '^(T[1-9A-HJ-NP-Za-km-z]{33}|41[0-9a-fA-F]{40})$';
const SHAPE = new RegExp(PATTERN);

/** A Tron address as requests carry it: base58 (T...) or 41-prefixed hex. Alike on every network. */
export const tronAddressForm: AddressForm = {
  family: 'tron',
  pattern: PATTERN,
  description: 'Tron address, base58 (T...) with a valid base58check checksum, or hex (41...)',
  example: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
  isValid: isTronAddress,
  // The pattern sees the alphabet and length; only decoding sees a mistyped character (the hex form has no checksum).
  fieldProblem: (field, value) => {
    if (!SHAPE.test(value)) {
      return `The ${field} field must be a Tron address: base58 (T and 33 characters) or hex (41 and 40 hex digits).`;
    }
    return isTronAddress(value) ? null : `The ${field} field has an invalid base58check checksum (a typo?).`;
  },
  canonical: toBase58Address,
};
