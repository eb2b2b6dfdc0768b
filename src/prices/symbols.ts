/**
 * What the price API knows: the coins and tokens it prices, their aliases, and the fiat currencies
 * prices may be asked in. Provider-specific ids (CoinGecko ids, Binance pairs) live with each provider.
 */
import { ApiError, invalidField } from '../errors.ts';

/** Every supported chain's native coin and the common stablecoins. */
export const PRICE_SYMBOLS = ['BTC', 'ETH', 'TRX', 'SOL', 'BNB', 'POL', 'USDT', 'USDC'] as const;
export type PriceSymbol = (typeof PRICE_SYMBOLS)[number];

/** Old tickers still in use: Polygon renamed MATIC to POL in September 2024. */
const ALIASES: Readonly<Record<string, PriceSymbol>> = { MATIC: 'POL' };

/**
 * Fiat currencies a price may be asked in: CoinGecko's fiat vs_currencies. Whether one is actually
 * offered depends on the configured providers (each declares its own).
 */
export const FIAT_CURRENCIES: ReadonlySet<string> = new Set([
  'usd',
  'eur',
  'gbp',
  'jpy',
  'chf',
  'cad',
  'aud',
  'nzd',
  'cny',
  'hkd',
  'sgd',
  'krw',
  'inr',
  'idr',
  'myr',
  'php',
  'thb',
  'twd',
  'vnd',
  'pkr',
  'bdt',
  'lkr',
  'mmk',
  'aed',
  'sar',
  'bhd',
  'kwd',
  'ils',
  'try',
  'rub',
  'uah',
  'gel',
  'pln',
  'czk',
  'huf',
  'sek',
  'nok',
  'dkk',
  'brl',
  'mxn',
  'ars',
  'clp',
  'zar',
  'ngn',
]);

/** A quote's currency: a fiat code (lower case) or a known symbol, priced as a cross rate through USD. */
export type QuoteCurrency = { kind: 'fiat'; code: string } | { kind: 'coin'; symbol: PriceSymbol };

export function isPriceSymbol(value: string): value is PriceSymbol {
  return (PRICE_SYMBOLS as readonly string[]).includes(value);
}

/** Canonical symbol for any case and alias, or null. */
export function canonicalSymbol(text: string): PriceSymbol | null {
  const upper = text.trim().toUpperCase();
  if (isPriceSymbol(upper)) return upper;
  return ALIASES[upper] ?? null;
}

/** @throws ApiError 404 `Unknown symbol X`. */
export function resolveSymbol(text: string): PriceSymbol {
  const symbol = canonicalSymbol(text);
  if (symbol === null) throw new ApiError(404, `Unknown symbol ${text.trim().toUpperCase()}`);
  return symbol;
}

/** A comma-separated list ("btc, ETH,matic"); empty or absent means every known symbol. Deduplicated. */
export function resolveSymbolList(text: string | undefined): PriceSymbol[] {
  const parts = (text ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return [...PRICE_SYMBOLS];
  return [...new Set(parts.map(resolveSymbol))];
}

export function isFiat(code: string): boolean {
  return FIAT_CURRENCIES.has(code.toLowerCase());
}

/** @throws ApiError 422 on the `field` when the text is neither a fiat code nor a known symbol. */
export function resolveCurrency(text: string, field = 'currency'): QuoteCurrency {
  const lower = text.trim().toLowerCase();
  if (FIAT_CURRENCIES.has(lower)) return { kind: 'fiat', code: lower };
  const symbol = canonicalSymbol(lower);
  if (symbol !== null) return { kind: 'coin', symbol };
  throw invalidField(
    field,
    `The ${field} field must be a fiat currency code (usd, eur, gbp, ...) or a known symbol.`,
  );
}

/** A convert side: a known symbol, or a fiat code. @throws ApiError 404 `Unknown symbol X`. */
export function resolveAsset(text: string): QuoteCurrency {
  const symbol = canonicalSymbol(text);
  if (symbol !== null) return { kind: 'coin', symbol };
  const lower = text.trim().toLowerCase();
  if (FIAT_CURRENCIES.has(lower)) return { kind: 'fiat', code: lower };
  throw new ApiError(404, `Unknown symbol ${text.trim().toUpperCase()}`);
}
