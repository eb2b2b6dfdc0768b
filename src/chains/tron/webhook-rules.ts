/** What Tron webhooks filter on: its four transfer kinds, addresses compared in base58. */
import type { ChainWebhookRules } from '../family.ts';
import { isTronAddress, toBase58Address } from './address.ts';

export const tronWebhookRules: ChainWebhookRules = {
  types: ['TRX', 'TRC10', 'TRC20', 'TRC721'],
  isAddress: isTronAddress,
  normalize: toBase58Address,
  display: (a) => a,
  hasContracts: true,
  hasMempool: false,
};
