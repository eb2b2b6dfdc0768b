/**
 * On-chain Chainlink price feeds (AggregatorV3Interface), read with `eth_call` through the adapter of
 * the feed's chain and network (its family's `callContract`), so the node's timeouts, retries and
 * failover apply. Answers are
 * integers with the feed's decimals: exact. A round older than the feed's threshold is flagged stale.
 */
import type { Abi, Hex } from 'viem';
import { viemUtils } from '../chains/evm/viem.ts';
import { familyOf } from '../chains/families.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { ConfigError } from '../config/error.ts';
import { type ChainlinkFeed, feedKeyError, feedPair } from './chainlink-feeds.ts';
import { parseChainlinkFeeds } from './config.ts';
import { type Decimal, divide, fromUnits } from './decimal.ts';
import { canonicalSymbol, FIAT_CURRENCIES, type PriceSymbol } from './symbols.ts';
import { type PriceProvider, PriceProviderResponseError, type Quote } from './types.ts';

export type { ChainlinkFeed };

/** JSON ABI, so that importing it loads no ABI parser: viem's encoders load with the first feed read. */
export const AGGREGATOR_V3_ABI = [
  // function decimals() view returns (uint8)
  { name: 'decimals', type: 'function', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
  // function description() view returns (string)
  {
    name: 'description',
    type: 'function',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'string' }],
  },
  // function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
  {
    name: 'latestRoundData',
    type: 'function',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { type: 'uint80', name: 'roundId' },
      { type: 'int256', name: 'answer' },
      { type: 'uint256', name: 'startedAt' },
      { type: 'uint256', name: 'updatedAt' },
      { type: 'uint80', name: 'answeredInRound' },
    ],
  },
] as const satisfies Abi;

/** Hourly heartbeat plus an hour of grace. */
export const DEFAULT_MAX_AGE_SECONDS = 7200;

/** One round read from a feed. */
export interface FeedRound {
  answer: Decimal;
  updatedAt: Date;
  stale: boolean;
}

/** Reads one feed; the provider's default reads it through the registry's adapter of its chain. */
export type FeedReader = (
  feed: ChainlinkFeed,
) => Promise<{ answer: bigint; decimals: number; updatedAt: bigint }>;

export interface ChainlinkOptions {
  /**
   * Keyed by pair: "BTC/USD", "EUR/USD", "ETH/EUR"; a bare symbol ("BTC") means its USD pair. Aliases
   * (MATIC) count as their symbol. A fiat/USD feed lets coins be priced in that fiat as a cross rate.
   */
  feeds: Record<string, ChainlinkFeed>;
  registry: Pick<ChainRegistry, 'get'>;
  now?: () => number;
}

const NAME = 'chainlink';

export class ChainlinkProvider implements PriceProvider {
  readonly name = NAME;
  readonly currencies: ReadonlySet<string>;
  readonly #feeds: Map<string, ChainlinkFeed>;
  readonly #read: FeedReader;
  readonly #now: () => number;

  constructor(options: ChainlinkOptions) {
    this.#feeds = normalizeFeeds(options.feeds);
    this.#read = registryFeedReader(options.registry);
    this.#now = options.now ?? Date.now;
    const currencies = new Set<string>();
    for (const pair of this.#feeds.keys()) {
      const [base, quote] = pair.split('/') as [string, string];
      if (canonicalSymbol(base) !== null) currencies.add(quote.toLowerCase());
      // A fiat/USD feed turns every coin/USD feed into a coin/fiat price.
      else if (quote === 'USD') currencies.add(base.toLowerCase());
    }
    this.currencies = currencies;
  }

  async quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]> {
    const fiat = currency.toUpperCase();
    const jobs = symbols.flatMap((symbol) => {
      const direct = this.#feeds.get(`${symbol}/${fiat}`);
      if (direct) return [this.#direct(symbol, currency, direct)];
      const usd = this.#feeds.get(`${symbol}/USD`);
      const fx = this.#feeds.get(`${fiat}/USD`);
      return usd && fx ? [this.#cross(symbol, currency, usd, fx)] : [];
    });
    const results = await Promise.allSettled(jobs);
    const quotes = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    // Some feeds answering is an answer; none answering is a provider failure the service falls back from.
    const failure = results.find((result) => result.status === 'rejected');
    if (quotes.length === 0 && failure) throw failure.reason;
    return quotes;
  }

  /** The latest round of one feed, with its staleness judged against this provider's clock. */
  async round(feed: ChainlinkFeed): Promise<FeedRound> {
    const { answer, decimals, updatedAt } = await this.#read(feed);
    if (answer <= 0n) {
      throw new PriceProviderResponseError(NAME, `feed ${feed.address} answered a non-positive price`);
    }
    const updatedMs = Number(updatedAt) * 1000;
    const maxAgeMs = (feed.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS) * 1000;
    return {
      answer: fromUnits(answer, decimals),
      updatedAt: new Date(updatedMs),
      stale: this.#now() - updatedMs > maxAgeMs,
    };
  }

  async #direct(symbol: PriceSymbol, currency: string, feed: ChainlinkFeed): Promise<Quote> {
    const round = await this.round(feed);
    return {
      symbol,
      currency,
      price: round.answer,
      change24h: null,
      updatedAt: round.updatedAt,
      stale: round.stale,
      source: NAME,
    };
  }

  async #cross(symbol: PriceSymbol, currency: string, usd: ChainlinkFeed, fx: ChainlinkFeed): Promise<Quote> {
    const [coin, fiat] = await Promise.all([this.round(usd), this.round(fx)]);
    return {
      symbol,
      currency,
      price: divide(coin.answer, fiat.answer),
      change24h: null,
      updatedAt: new Date(Math.min(coin.updatedAt.getTime(), fiat.updatedAt.getTime())),
      stale: coin.stale || fiat.stale,
      source: NAME,
    };
  }
}

/** Reads decimals() once per feed (it never changes) and latestRoundData() on every call. */
export function registryFeedReader(registry: Pick<ChainRegistry, 'get'>): FeedReader {
  const decimals = new Map<string, Promise<number>>();
  const call = async (feed: ChainlinkFeed, functionName: 'decimals' | 'latestRoundData') => {
    const adapter = registry.get(feed.chain, feed.network);
    const callContract = familyOf(adapter.chain)?.callContract;
    if (callContract === undefined) {
      throw new PriceProviderResponseError(
        NAME,
        `feed ${feed.address} on ${feed.chain}: the chain has no contracts`,
      );
    }
    const { decodeFunctionResult, encodeFunctionData } = await viemUtils();
    const data = encodeFunctionData({ abi: AGGREGATOR_V3_ABI, functionName });
    const raw: Hex = await callContract(adapter, { to: feed.address, data });
    try {
      return decodeFunctionResult({ abi: AGGREGATOR_V3_ABI, functionName, data: raw });
    } catch (error) {
      const why = raw === '0x' ? 'no contract code at this address' : `${functionName}() cannot be decoded`;
      throw new PriceProviderResponseError(NAME, `feed ${feed.address} on ${feed.chain}: ${why}`, {
        cause: error,
      });
    }
  };
  return async (feed) => {
    const key = `${feed.chain}:${feed.network}:${feed.address.toLowerCase()}`;
    let known = decimals.get(key);
    if (!known) {
      known = call(feed, 'decimals').then(Number);
      decimals.set(key, known);
      known.catch(() => decimals.delete(key));
    }
    const [places, round] = await Promise.all([known, call(feed, 'latestRoundData')]);
    const [, answer, , updatedAt] = round as readonly [bigint, bigint, bigint, bigint, bigint];
    return { answer, decimals: places, updatedAt };
  };
}

/**
 * "btc" -> "BTC/USD", "matic/usd" -> "POL/USD", "eur/usd" -> "EUR/USD"; rejects a pair whose first half is
 * neither a priced coin nor a fiat currency, and what cannot be a pair.
 */
export function normalizeFeeds(feeds: Record<string, ChainlinkFeed>): Map<string, ChainlinkFeed> {
  const normalized = new Map<string, ChainlinkFeed>();
  for (const [key, feed] of Object.entries(feeds)) {
    const [base, quote] = feedPair(key, feed);
    const symbol = canonicalSymbol(base);
    if (symbol === null && !FIAT_CURRENCIES.has(base.toLowerCase())) throw feedKeyError(key);
    normalized.set(`${symbol ?? base}/${quote}`, feed);
  }
  return normalized;
}

/**
 * `CHAINLINK_FEEDS` read (prices/config.ts) and checked against the priced coins, which only the families
 * know: a feed of a coin the gateway does not price is refused at start, naming the variable.
 */
export function readChainlinkFeeds(
  raw: string | undefined,
  variable = 'CHAINLINK_FEEDS',
): Record<string, ChainlinkFeed> {
  const feeds = parseChainlinkFeeds(raw, variable);
  try {
    normalizeFeeds(feeds);
  } catch (error) {
    throw new ConfigError(variable, (error as Error).message);
  }
  return feeds;
}
