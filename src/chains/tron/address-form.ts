import type { AddressForm } from '../family.ts';
import { isTronAddress, toBase58Address } from './address.ts';

/** A Tron address as requests carry it: base58 (T...) or 41-prefixed hex. */
export const tronAddressForm: AddressForm = {
  pattern: '^(T[1-9A-HJ-NP-Za-km-z]{33}|41[0-9a-fA-F]{40})$',
  description: 'Tron address, base58 (T...) or hex (41...)',
  example: 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC',
  isValid: isTronAddress,
  // The pattern is the whole rule here; a bad base58 checksum is refused where the address is used.
  fieldProblem: () => null,
  canonical: toBase58Address,
};
