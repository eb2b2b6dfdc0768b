/**
 * What TON webhooks filter on: TON and jettons. Addresses are compared raw (`0:<hex>`, lower case), the
 * one spelling an account has whatever form (bounceable or not, either network's flag) a filter was
 * written in, and shown raw too: the rules are given no network, and a raw address is read alike on
 * both, where a user-friendly one would carry a network's flag.
 */
import type { ChainWebhookRules } from '../family.ts';
import { isTonAddress } from './address.ts';
import { comparableAddress } from './block-transfers.ts';

export const tonWebhookRules: ChainWebhookRules = {
  types: ['TON', 'JETTON'],
  isAddress: isTonAddress,
  normalize: (address) => comparableAddress(address) ?? address,
  display: (address) => address,
  hasContracts: true,
  hasMempool: false,
};
