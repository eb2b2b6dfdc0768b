/**
 * CoinGecko: `GET /simple/price` (with include_24hr_change and include_last_updated_at) for quotes and
 * `GET /coins/{id}/market_chart` for history. Numbers are read from the response text losslessly.
 * A demo key goes in `x-cg-demo-api-key` (api.coingecko.com), a paid key in `x-cg-pro-api-key`
 * (pro-api.coingecko.com).
 */
import type { NodeClient } from '../chains/node-client.ts';
import { parseJsonNumbersAsText } from '../json/lossless-parse.ts';
import { type Decimal, isPositive, parseDecimal } from './decimal.ts';
import { type PriceHttpOptions, priceHttpClient } from './http-client.ts';
import { type PriceSymbol, pricedCoin } from './symbols.ts';
import { type PricePoint, type PriceProvider, PriceProviderResponseError, type Quote } from './types.ts';

export const COINGECKO_PUBLIC_URL = 'https://api.coingecko.com/api/v3';
export const COINGECKO_PRO_URL = 'https://pro-api.coingecko.com/api/v3';

export interface CoinGeckoOptions extends PriceHttpOptions {
  /** Default: the public API, or the pro API when `apiKeyKind` is 'pro'. */
  url?: string;
  apiKey?: string;
  /** Which header carries the key. Default: 'pro' when the URL is on pro-api.coingecko.com, else 'demo'. */
  apiKeyKind?: 'demo' | 'pro';
  now?: () => number;
}

const NAME = 'coingecko';

export class CoinGeckoProvider implements PriceProvider {
  readonly name = NAME;
  readonly #client: NodeClient;
  readonly #now: () => number;

  constructor(options: CoinGeckoOptions = {}) {
    const kind = options.apiKeyKind ?? (options.url?.includes('pro-api.coingecko.com') ? 'pro' : 'demo');
    const url = options.url ?? (kind === 'pro' ? COINGECKO_PRO_URL : COINGECKO_PUBLIC_URL);
    const headers: Record<string, string> = {};
    if (options.apiKey) headers[kind === 'pro' ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key'] = options.apiKey;
    this.#client = priceHttpClient(NAME, url, headers, options);
    this.#now = options.now ?? Date.now;
  }

  async quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]> {
    if (symbols.length === 0) return [];
    const query = new URLSearchParams({
      ids: symbols.map(coingeckoId).join(','),
      vs_currencies: currency,
      include_24hr_change: 'true',
      include_last_updated_at: 'true',
      precision: 'full',
    });
    const text = await this.#client.getText(`/simple/price?${query}`);
    return parseCoinGeckoSimplePrice(readJson(text), symbols, currency, new Date(this.#now()));
  }

  async history(symbol: PriceSymbol, currency: string, days: number): Promise<PricePoint[]> {
    const query = new URLSearchParams({ vs_currency: currency, days: String(days), precision: 'full' });
    const text = await this.#client.getText(`/coins/${coingeckoId(symbol)}/market_chart?${query}`);
    return parseCoinGeckoMarketChart(readJson(text));
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

/**
 * `{"bitcoin":{"usd":67187.33,"usd_24h_change":-0.39,"last_updated_at":1711356300}}`, numbers as text.
 * A coin missing from the answer, or without a price in `currency` (CoinGecko answers `{}` for a
 * currency it does not know), is left out.
 */
export function parseCoinGeckoSimplePrice(
  body: unknown,
  symbols: readonly PriceSymbol[],
  currency: string,
  fetchedAt: Date,
): Quote[] {
  if (!isRecord(body)) throw new PriceProviderResponseError(NAME, 'simple/price answer is not an object');
  const quotes: Quote[] = [];
  for (const symbol of symbols) {
    const entry = body[coingeckoId(symbol)];
    if (!isRecord(entry)) continue;
    const price = decimalField(entry[currency]);
    if (price === null || !isPositive(price)) continue;
    const updated = decimalField(entry['last_updated_at']);
    quotes.push({
      symbol,
      currency,
      price,
      change24h: decimalField(entry[`${currency}_24h_change`]),
      updatedAt: updated === null ? fetchedAt : secondsToDate(updated),
      source: NAME,
      stale: false,
    });
  }
  return quotes;
}

/** `{"prices":[[1711843200000,69702.31],...],"market_caps":[...],"total_volumes":[...]}`, numbers as text. */
export function parseCoinGeckoMarketChart(body: unknown): PricePoint[] {
  const prices = isRecord(body) ? body['prices'] : undefined;
  if (!Array.isArray(prices)) throw new PriceProviderResponseError(NAME, 'market_chart answer has no prices');
  const points: PricePoint[] = [];
  for (const pair of prices) {
    if (!Array.isArray(pair) || pair.length < 2) {
      throw new PriceProviderResponseError(NAME, 'market_chart price is not a [time, price] pair');
    }
    const time = decimalField(pair[0]);
    const price = decimalField(pair[1]);
    if (time === null || time.scale !== 0 || price === null) {
      throw new PriceProviderResponseError(NAME, 'market_chart price pair is not numeric');
    }
    points.push({ time: new Date(Number(time.units)), price });
  }
  return points;
}

/** CoinGecko's id of the coin (https://api.coingecko.com/api/v3/coins/list), as the coin declares it. */
function coingeckoId(symbol: PriceSymbol): string {
  return pricedCoin(symbol).coingeckoId;
}

function readJson(text: string): unknown {
  try {
    return parseJsonNumbersAsText(text);
  } catch (error) {
    throw new PriceProviderResponseError(NAME, 'answer is not JSON', { cause: error });
  }
}

/** A JSON number kept as text; null for null, absent or non-numeric fields. */
function decimalField(value: unknown): Decimal | null {
  return typeof value === 'string' ? parseDecimal(value) : null;
}

function secondsToDate(seconds: Decimal): Date {
  const whole = seconds.units / 10n ** BigInt(seconds.scale);
  return new Date(Number(whole) * 1000);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
