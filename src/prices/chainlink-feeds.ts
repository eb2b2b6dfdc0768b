/**
 * The shape of a configured Chainlink feed and its check, apart from the provider so that reading the
 * configuration does not load the EVM libraries.
 */
import type { Network } from '../chains/types.ts';
import { canonicalSymbol, FIAT_CURRENCIES } from './symbols.ts';

/** Any-case hex: the checksum is not required of a configured address. */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface ChainlinkFeed {
  /** EVM chain name as the registry knows it: ethereum, bsc, polygon, arbitrum. */
  chain: string;
  network: Network;
  address: string;
  /**
   * A round older than this is stale. Default DEFAULT_MAX_AGE_SECONDS, which suits feeds with an hourly
   * heartbeat (BTC/USD, ETH/USD); stablecoin and fiat feeds beat daily and want about 90000.
   */
  maxAgeSeconds?: number;
}

/** "btc" -> "BTC/USD", "matic/usd" -> "POL/USD", "eur/usd" -> "EUR/USD"; rejects what cannot be a pair. */
export function normalizeFeeds(feeds: Record<string, ChainlinkFeed>): Map<string, ChainlinkFeed> {
  const normalized = new Map<string, ChainlinkFeed>();
  for (const [key, feed] of Object.entries(feeds)) {
    const [base = '', quote = 'USD', ...rest] = key.split('/').map((part) => part.trim().toUpperCase());
    const baseName = canonicalSymbol(base) ?? base;
    const known = (name: string) => canonicalSymbol(name) !== null || FIAT_CURRENCIES.has(name.toLowerCase());
    if (rest.length > 0 || !known(base) || !FIAT_CURRENCIES.has(quote.toLowerCase())) {
      throw new TypeError(`Chainlink feed "${key}": expected SYMBOL or SYMBOL/FIAT (e.g. BTC/USD, EUR/USD)`);
    }
    if (!EVM_ADDRESS.test(feed.address)) {
      throw new TypeError(`Chainlink feed "${key}": address is not an EVM address`);
    }
    normalized.set(`${baseName}/${quote}`, feed);
  }
  return normalized;
}
