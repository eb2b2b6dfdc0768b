/**
 * The shape of a configured Chainlink feed and the checks that need no coin list, apart from the
 * provider so that reading the configuration loads neither the families nor the EVM libraries. Whether
 * a pair's coin is priced at all is the provider's check (chainlink.ts `normalizeFeeds`).
 */
import type { Network } from '../chains/types.ts';
import { FIAT_CURRENCIES } from './fiat-currencies.ts';

/** Any-case hex: the checksum is not required of a configured address. */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A ticker or a fiat code, as a pair's first half may name it. */
const TICKER = /^[A-Z0-9]+$/;

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

/** The refusal of a feed key that names no pair the gateway can price. */
export function feedKeyError(key: string): TypeError {
  return new TypeError(`Chainlink feed "${key}": expected SYMBOL or SYMBOL/FIAT (e.g. BTC/USD, EUR/USD)`);
}

/**
 * "btc" -> ["BTC", "USD"], "eth/eur" -> ["ETH", "EUR"]: the pair a key names, upper case, with a fiat
 * second half and an address that can be an EVM contract's. @throws TypeError for anything else.
 */
export function feedPair(key: string, feed: ChainlinkFeed): [base: string, quote: string] {
  const [base = '', quote = 'USD', ...rest] = key.split('/').map((part) => part.trim().toUpperCase());
  if (rest.length > 0 || !TICKER.test(base) || !FIAT_CURRENCIES.has(quote.toLowerCase())) {
    throw feedKeyError(key);
  }
  if (!EVM_ADDRESS.test(feed.address)) {
    throw new TypeError(`Chainlink feed "${key}": address is not an EVM address`);
  }
  return [base, quote];
}
