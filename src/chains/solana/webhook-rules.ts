/** What Solana webhooks filter on: SOL and SPL tokens, addresses as written (base58 is case-sensitive). */
import type { ChainWebhookRules } from '../family.ts';
import { isSolanaAddress } from './keys.ts';

export const solanaWebhookRules: ChainWebhookRules = {
  types: ['SOL', 'SPL'],
  isAddress: isSolanaAddress,
  normalize: (a) => a,
  display: (a) => a,
  hasContracts: true,
  hasMempool: false,
};
