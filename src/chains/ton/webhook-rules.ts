/**
 * What TON webhooks filter on: TON and jettons, and the comment a payment carries. Addresses are compared
 * raw (`0:<hex>`, lower case), the one spelling an account has whatever form (bounceable or not, either
 * network's flag) a filter was written in. They are shown as wallets show them on the network (`UQ…` on
 * mainnet, `0Q…` on testnet).
 */
import type { ChainWebhookRules } from '../family.ts';
import type { Network } from '../types.ts';
import { isTonAddress, tonAddressOf, walletAddress } from './address.ts';
import { comparableAddress } from './block-transfers.ts';

/** An address as webhooks show it on `network`: as wallets show it there. */
export function tonDisplayAddress(address: string, network: Network): string {
  const parsed = tonAddressOf(address);
  return parsed === null ? address : walletAddress(parsed, network);
}

export const tonWebhookRules: ChainWebhookRules = {
  types: ['TON', 'JETTON'],
  isAddress: isTonAddress,
  normalize: (address: string) => comparableAddress(address) ?? address,
  display: tonDisplayAddress,
  hasContracts: true,
  hasMempool: false,
  hasComments: true,
};
