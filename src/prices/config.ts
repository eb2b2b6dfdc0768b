/**
 * Reads the price settings' environment formats (PRICE_PROVIDERS, CHAINLINK_FEEDS) into the factory's
 * options, with ConfigError naming the variable, as src/config.ts does for everything else.
 */

import { NETWORKS, type Network } from '../chains/types.ts';
import { ConfigError } from '../config/error.ts';
import { type ChainlinkFeed, feedPair } from './chainlink-feeds.ts';
import { PRICE_PROVIDER_NAMES } from './provider-names.ts';

/** "coingecko, binance,chainlink" -> ['coingecko', 'binance', 'chainlink']; empty or absent: `fallback`. */
export function parsePriceProviders(
  raw: string | undefined,
  fallback: readonly string[] = ['coingecko', 'binance'],
  variable = 'PRICE_PROVIDERS',
): string[] {
  const names = (raw ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0) return [...fallback];
  for (const name of names) {
    if (!(PRICE_PROVIDER_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(variable, `unknown provider "${name}" (use ${PRICE_PROVIDER_NAMES.join(', ')})`);
    }
  }
  if (new Set(names).size !== names.length) throw new ConfigError(variable, 'a provider is listed twice');
  return names;
}

/**
 * `{"BTC/USD": {"chain":"ethereum","network":"mainnet","address":"0xF4030086...","maxAgeSeconds":3600}}`
 * -> feeds; empty or absent: {}.
 */
export function parseChainlinkFeeds(
  raw: string | undefined,
  variable = 'CHAINLINK_FEEDS',
): Record<string, ChainlinkFeed> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(variable, 'is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(variable, 'must be a JSON object of pair -> {chain, network, address}');
  }
  const feeds: Record<string, ChainlinkFeed> = {};
  for (const [pair, value] of Object.entries(parsed)) {
    const item = (value ?? {}) as Record<string, unknown>;
    const { chain, network, address, maxAgeSeconds } = item;
    if (typeof chain !== 'string' || typeof address !== 'string') {
      throw new ConfigError(variable, `${pair}: chain and address must be strings`);
    }
    const net = network ?? 'mainnet';
    if (!(NETWORKS as readonly unknown[]).includes(net)) {
      throw new ConfigError(variable, `${pair}: network must be ${NETWORKS.join(' or ')}`);
    }
    if (maxAgeSeconds !== undefined && !(Number.isInteger(maxAgeSeconds) && (maxAgeSeconds as number) > 0)) {
      throw new ConfigError(variable, `${pair}: maxAgeSeconds must be a positive whole number`);
    }
    feeds[pair] = {
      chain,
      network: net as Network,
      address,
      ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds: maxAgeSeconds as number }),
    };
  }
  try {
    for (const [pair, feed] of Object.entries(feeds)) feedPair(pair, feed);
  } catch (error) {
    throw new ConfigError(variable, (error as Error).message);
  }
  return feeds;
}
