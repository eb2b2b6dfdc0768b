/**
 * Binance public market data: `GET /api/v3/ticker/24hr?symbols=[...]` for the XXXUSDT pairs. USD is
 * taken as USDT (USDT itself is priced at exactly 1 USD); EUR comes through the EURUSDT pair. Binance
 * sends prices as decimal strings, so nothing here is ever a float.
 */
import type { NodeClient } from '../chains/node-client.ts';
import { type Decimal, divide, multiply, ONE, ratioToPercentChange, requireDecimal } from './decimal.ts';
import { type PriceHttpOptions, priceHttpClient } from './http-client.ts';
import { type PriceSymbol, pricedCoin } from './symbols.ts';
import { type PriceProvider, PriceProviderResponseError, type Quote } from './types.ts';

export const BINANCE_PUBLIC_URL = 'https://api.binance.com';

/** The asset every pair is quoted in, taken as the US dollar (and itself priced at exactly 1). */
const QUOTE_ASSET = 'USDT';
const EUR_PAIR = 'EURUSDT';
const NAME = 'binance';

/** The fields of a 24hr ticker this provider reads, already checked. */
export interface BinanceTicker {
  symbol: string;
  lastPrice: Decimal;
  openPrice: Decimal;
  priceChangePercent: Decimal;
  closeTime: Date;
}

export interface BinanceOptions extends PriceHttpOptions {
  url?: string;
  now?: () => number;
}

export class BinanceProvider implements PriceProvider {
  readonly name = NAME;
  readonly currencies: ReadonlySet<string> = new Set(['usd', 'eur']);
  readonly #client: NodeClient;
  readonly #now: () => number;

  constructor(options: BinanceOptions = {}) {
    this.#client = priceHttpClient(NAME, options.url ?? BINANCE_PUBLIC_URL, {}, options);
    this.#now = options.now ?? Date.now;
  }

  async quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]> {
    if (!this.currencies.has(currency) || symbols.length === 0) return [];
    // One unknown pair fails the whole request (-1121 Invalid symbol), so only listed pairs are asked.
    const pairs = symbols.flatMap((symbol) => pricedCoin(symbol).binancePair ?? []);
    if (currency === 'eur') pairs.push(EUR_PAIR);
    const tickers =
      pairs.length === 0
        ? new Map<string, BinanceTicker>()
        : parseBinanceTickers(
            await this.#client.getJson(
              `/api/v3/ticker/24hr?symbols=${encodeURIComponent(JSON.stringify(pairs))}`,
            ),
          );
    return binanceQuotes(tickers, symbols, currency, new Date(this.#now()));
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}

/** The 24hr ticker array, by pair. */
export function parseBinanceTickers(body: unknown): Map<string, BinanceTicker> {
  if (!Array.isArray(body)) throw new PriceProviderResponseError(NAME, 'ticker/24hr answer is not an array');
  const tickers = new Map<string, BinanceTicker>();
  for (const item of body) {
    if (item === null || typeof item !== 'object') {
      throw new PriceProviderResponseError(NAME, 'ticker/24hr item is not an object');
    }
    const raw = item as Record<string, unknown>;
    try {
      const symbol = raw['symbol'];
      const closeTime = raw['closeTime'];
      if (typeof symbol !== 'string' || typeof closeTime !== 'number')
        throw new TypeError('symbol or closeTime');
      tickers.set(symbol, {
        symbol,
        lastPrice: requireDecimal(raw['lastPrice'], 'lastPrice'),
        openPrice: requireDecimal(raw['openPrice'], 'openPrice'),
        priceChangePercent: requireDecimal(raw['priceChangePercent'], 'priceChangePercent'),
        closeTime: new Date(closeTime),
      });
    } catch (error) {
      throw new PriceProviderResponseError(
        NAME,
        `ticker/24hr item is malformed: ${(error as Error).message}`,
      );
    }
  }
  return tickers;
}

/** Quotes from tickers; in EUR every USDT price is divided by EURUSDT, the 24h change likewise. */
export function binanceQuotes(
  tickers: ReadonlyMap<string, BinanceTicker>,
  symbols: readonly PriceSymbol[],
  currency: string,
  fetchedAt: Date,
): Quote[] {
  const eur = tickers.get(EUR_PAIR);
  if (currency === 'eur' && !eur) return [];
  const quotes: Quote[] = [];
  for (const symbol of symbols) {
    const pair = pricedCoin(symbol).binancePair;
    const ticker = pair === undefined ? undefined : tickers.get(pair);
    // A coin without a pair is priced only when it is the quote asset itself.
    if (ticker === undefined && symbol !== QUOTE_ASSET) continue;
    // USDT against USD: by definition here, 1 at all times.
    const last = ticker?.lastPrice ?? ONE;
    const open = ticker?.openPrice ?? ONE;
    const updatedAt = ticker?.closeTime ?? fetchedAt;
    if (last.units <= 0n) continue;
    if (currency === 'usd') {
      quotes.push({
        symbol,
        currency,
        price: last,
        change24h: ticker?.priceChangePercent ?? null,
        updatedAt,
        source: NAME,
        stale: false,
      });
    } else if (eur && eur.lastPrice.units > 0n && eur.openPrice.units > 0n && open.units > 0n) {
      // price_eur / open_eur = (last * eurOpen) / (open * eurLast): one division, no drift.
      const ratio = divide(multiply(last, eur.openPrice), multiply(open, eur.lastPrice));
      quotes.push({
        symbol,
        currency,
        price: divide(last, eur.lastPrice),
        change24h: ratioToPercentChange(ratio),
        updatedAt: new Date(Math.min(updatedAt.getTime(), eur.closeTime.getTime())),
        source: NAME,
        stale: false,
      });
    }
  }
  return quotes;
}
