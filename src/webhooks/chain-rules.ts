import { checksumAddress, isEvmAddress } from '../chains/evm/keys.ts';
import { isTronAddress, toBase58Address } from '../chains/tron/address.ts';
import { type ChainName, isChainName } from '../chains/types.ts';

/** What a webhook filter on one chain may name, and how its addresses are compared. */
export interface ChainWebhookRules {
  /** Transfer types the chain's webhooks filter on (Chaingateway's enums, plus Arbitrum, Solana). */
  types: readonly string[];
  /** Other names accepted for a type (Polygon's native coin was MATIC in the spec). */
  aliases?: Record<string, string>;
  isAddress(address: string): boolean;
  /** The one form matching compares, so an address in any accepted spelling matches. */
  normalize(address: string): string;
  /** The form users are shown (stored webhooks, notifications), from the normalized form. */
  display(address: string): string;
  /** Bitcoin has no token contracts. */
  hasContracts: boolean;
  /** Unconfirmed transfers can be seen (and notified as `pending`) before a block holds them. */
  hasMempool: boolean;
}

const evm = (types: readonly string[], aliases?: Record<string, string>): ChainWebhookRules => ({
  types,
  ...(aliases ? { aliases } : {}),
  // 0x required; mixed case must carry a valid EIP-55 checksum, so a typo is refused, not watched.
  isAddress: (a) => a.startsWith('0x') && isEvmAddress(a),
  normalize: (a) => a.toLowerCase(),
  // EIP-55, as wallets and explorers write it; matching still compares the lower-case form.
  display: (a) => checksumAddress(a),
  hasContracts: true,
  hasMempool: false,
});

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

export const WEBHOOK_RULES: Record<ChainName, ChainWebhookRules> = {
  tron: {
    types: ['TRX', 'TRC10', 'TRC20', 'TRC721'],
    isAddress: isTronAddress,
    normalize: toBase58Address,
    display: (a) => a,
    hasContracts: true,
    hasMempool: false,
  },
  ethereum: evm(['ETH', 'ERC20', 'ERC721']),
  bsc: evm(['BNB', 'BEP20', 'BEP721'], { ERC20: 'BEP20', ERC721: 'BEP721' }),
  polygon: evm(['POL', 'ERC20', 'ERC721'], { MATIC: 'POL' }),
  arbitrum: evm(['ETH', 'ERC20', 'ERC721']),
  solana: {
    types: ['SOL', 'SPL'],
    isAddress: (a) => a.length >= 32 && a.length <= 44 && BASE58.test(a),
    normalize: (a) => a,
    display: (a) => a,
    hasContracts: true,
    hasMempool: false,
  },
  bitcoin: {
    types: ['BTC'],
    isAddress: (a) => /^(bc1|tb1|bcrt1|[13mn2])[a-zA-HJ-NP-Z0-9]{25,87}$/.test(a),
    // Bech32 is case-insensitive (and written lower case); base58 is case-sensitive.
    normalize: (a) => (/^(bc1|tb1|bcrt1)/i.test(a) ? a.toLowerCase() : a),
    display: (a) => a,
    hasContracts: false,
    hasMempool: true,
  },
};

/**
 * A normalized address, or null, in the chain's display form. Never throws: it runs inside the watcher's
 * block transaction, where an address it cannot show must not stop the chain; it is shown as it is.
 */
export function displayAddress(chain: string, address: string | null): string | null {
  if (address === null || !isChainName(chain)) return address;
  try {
    return WEBHOOK_RULES[chain].display(address);
  } catch {
    return address;
  }
}
