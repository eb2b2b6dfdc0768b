/** What Bitcoin webhooks filter on: BTC alone, with no contracts, and seen in the mempool before a block. */
import type { ChainWebhookRules } from '../family.ts';
import { isBitcoinAddress } from './address.ts';

export const bitcoinWebhookRules: ChainWebhookRules = {
  types: ['BTC'],
  // Its network is checked where the request arrives (http/address-fields.ts), which knows the request's.
  isAddress: isBitcoinAddress,
  // Bech32 is case-insensitive (and written lower case); base58 is case-sensitive.
  normalize: (a) => (/^(bc1|tb1|bcrt1)/i.test(a) ? a.toLowerCase() : a),
  display: (a) => a,
  hasContracts: false,
  hasMempool: true,
};
