/**
 * What the price API knows: the coins it prices (each family's own, `FamilyModule.priceCoins`, and the
 * common stablecoins), their aliases, and the fiat currencies prices may be asked in. How each provider
 * names a coin is the coin's data (`PricedCoin`).
 */
import { FAMILIES } from '../chains/families.ts';
import type { PricedCoin } from '../chains/family.ts';
import { ApiError, invalidField } from '../errors.ts';
import { FIAT_CURRENCIES } from './fiat-currencies.ts';
import { STABLECOINS } from './stablecoins.ts';

export { FIAT_CURRENCIES } from './fiat-currencies.ts';

/** A coin's canonical ticker, upper case: what `canonicalSymbol` answers for any spelling or alias. */
export type PriceSymbol = string;

/** Every coin the API prices, once each, in the order its lists answer in. */
const COINS: ReadonlyMap<PriceSymbol, PricedCoin> = new Map(
  [...FAMILIES.flatMap((family) => family.priceCoins), ...STABLECOINS]
    .sort((a, b) => a.order - b.order)
    .map((coin) => [coin.symbol, coin]),
);

/** Every priced coin's symbol: the families' coins and the stablecoins. */
export const PRICE_SYMBOLS: readonly PriceSymbol[] = [...COINS.keys()];

/** Old tickers still in use, to the symbol they now are (Polygon renamed MATIC to POL in September 2024). */
export const SYMBOL_ALIASES: ReadonlyMap<string, PriceSymbol> = new Map(
  [...COINS.values()].flatMap((coin) => (coin.aliases ?? []).map((alias) => [alias, coin.symbol] as const)),
);

/** The coin of a known symbol, with its ids at each price source. @throws TypeError for another symbol. */
export function pricedCoin(symbol: PriceSymbol): PricedCoin {
  const coin = COINS.get(symbol);
  if (coin === undefined) throw new TypeError(`${symbol} is not a priced coin`);
  return coin;
}

/** A quote's currency: a fiat code (lower case) or a known symbol, priced as a cross rate through USD. */
export type QuoteCurrency = { kind: 'fiat'; code: string } | { kind: 'coin'; symbol: PriceSymbol };

/** Canonical symbol for any case and alias, or null. */
export function canonicalSymbol(text: string): PriceSymbol | null {
  const upper = text.trim().toUpperCase();
  if (COINS.has(upper)) return upper;
  return SYMBOL_ALIASES.get(upper) ?? null;
}

/** Never quotes what was asked: the symbol is the client's text, and a message is no place to echo it. */
const UNKNOWN_SYMBOL = 'Unknown symbol';

/** @throws ApiError 404 `Unknown symbol`. */
export function resolveSymbol(text: string): PriceSymbol {
  const symbol = canonicalSymbol(text);
  if (symbol === null) throw new ApiError(404, UNKNOWN_SYMBOL);
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

/** A convert side: a known symbol, or a fiat code. @throws ApiError 404 `Unknown symbol`. */
export function resolveAsset(text: string): QuoteCurrency {
  const symbol = canonicalSymbol(text);
  if (symbol !== null) return { kind: 'coin', symbol };
  const lower = text.trim().toLowerCase();
  if (FIAT_CURRENCIES.has(lower)) return { kind: 'fiat', code: lower };
  throw new ApiError(404, UNKNOWN_SYMBOL);
}
