/** Builds a PriceService from configuration: provider names in order of preference, plus their settings. */
import type { ChainRegistry } from '../chains/registry.ts';
import { BinanceProvider } from './binance.ts';
import { type ChainlinkFeed, ChainlinkProvider } from './chainlink.ts';
import { CoinGeckoProvider } from './coingecko.ts';
import { LocalPriceProvider } from './local.ts';
import { PRICE_PROVIDER_NAMES } from './provider-names.ts';
import { type PriceLogger, PriceService } from './service.ts';
import type { PriceProvider } from './types.ts';

export { PRICE_PROVIDER_NAMES, type PriceProviderName } from './provider-names.ts';

export interface CreatePriceServiceOptions {
  /** Order of preference, e.g. ['coingecko', 'binance', 'chainlink'] or ['local']. */
  providers: readonly string[];
  coingeckoUrl?: string;
  coingeckoApiKey?: string;
  /** Which CoinGecko key header; default from the URL (pro-api.coingecko.com: pro, else demo). */
  coingeckoApiKeyKind?: 'demo' | 'pro';
  binanceUrl?: string;
  /** Pair ("BTC/USD", "EUR/USD"; a bare symbol means its USD pair) -> feed. Needed for 'chainlink'. */
  chainlinkFeeds?: Record<string, ChainlinkFeed>;
  /** EVM adapters the Chainlink feeds are read through. Needed for 'chainlink'. */
  registry?: Pick<ChainRegistry, 'get'>;
  ttlMs?: number;
  /** Per HTTP attempt (CoinGecko, Binance). Default 5000. */
  timeoutMs?: number;
  /** HTTP retries after the first attempt. Default 2. */
  retries?: number;
  refreshIntervalMs?: number;
  retryAfterFailureMs?: number;
  now?: () => number;
  logger?: PriceLogger;
}

/** @throws TypeError on an unknown provider name or a provider missing what it needs. */
export function createPriceService(options: CreatePriceServiceOptions): PriceService {
  if (options.providers.length === 0) throw new TypeError('price providers: name at least one');
  const seen = new Set<string>();
  const providers = options.providers.map((raw) => {
    const name = raw.trim().toLowerCase();
    if (seen.has(name)) throw new TypeError(`price provider "${name}" listed twice`);
    seen.add(name);
    return buildProvider(name, options);
  });
  return new PriceService({
    providers,
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    ...(options.refreshIntervalMs === undefined ? {} : { refreshIntervalMs: options.refreshIntervalMs }),
    ...(options.retryAfterFailureMs === undefined
      ? {}
      : { retryAfterFailureMs: options.retryAfterFailureMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
}

function buildProvider(name: string, options: CreatePriceServiceOptions): PriceProvider {
  const http = {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.retries === undefined ? {} : { retries: options.retries }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
  switch (name) {
    case 'coingecko':
      return new CoinGeckoProvider({
        ...http,
        ...(options.coingeckoUrl ? { url: options.coingeckoUrl } : {}),
        ...(options.coingeckoApiKey ? { apiKey: options.coingeckoApiKey } : {}),
        ...(options.coingeckoApiKeyKind ? { apiKeyKind: options.coingeckoApiKeyKind } : {}),
      });
    case 'binance':
      return new BinanceProvider({ ...http, ...(options.binanceUrl ? { url: options.binanceUrl } : {}) });
    case 'chainlink': {
      const feeds = options.chainlinkFeeds ?? {};
      if (Object.keys(feeds).length === 0 || !options.registry) {
        throw new TypeError('price provider "chainlink" needs chainlinkFeeds and the chain registry');
      }
      return new ChainlinkProvider({
        feeds,
        registry: options.registry,
        ...(options.now === undefined ? {} : { now: options.now }),
      });
    }
    case 'local':
      return new LocalPriceProvider(options.now === undefined ? {} : { now: options.now });
    default:
      throw new TypeError(`unknown price provider "${name}"; known: ${PRICE_PROVIDER_NAMES.join(', ')}`);
  }
}
