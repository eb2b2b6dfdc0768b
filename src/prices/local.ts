/**
 * A deterministic offline provider for the sandbox and tests: fixed, realistic USD prices that drift
 * along a slow triangle wave of the minute (each coin's `local` data: 1 % for most, 0.05 % for
 * stablecoins), so prices move, the 24h change is not always zero, and the same instant always gives
 * the same price.
 */
import { type Decimal, divide, multiply, parseDecimal, ratioToPercentChange } from './decimal.ts';
import { type PriceSymbol, pricedCoin } from './symbols.ts';
import type { PricePoint, PriceProvider, Quote } from './types.ts';

/** Units of the currency per US dollar. */
const FX_PER_USD: Readonly<Record<string, string>> = { usd: '1', eur: '0.92', gbp: '0.79' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NAME = 'local';

export class LocalPriceProvider implements PriceProvider {
  readonly name = NAME;
  readonly currencies: ReadonlySet<string> = new Set(Object.keys(FX_PER_USD));
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]> {
    if (!this.currencies.has(currency)) return [];
    const minute = Math.floor(this.#now() / MINUTE);
    return symbols.map((symbol) => {
      const now = localPrice(symbol, currency, minute);
      const dayAgo = localPrice(symbol, currency, minute - DAY / MINUTE);
      return {
        symbol,
        currency,
        price: now,
        change24h: ratioToPercentChange(divide(now, dayAgo)),
        updatedAt: new Date(minute * MINUTE),
        source: NAME,
        stale: false,
      };
    });
  }

  /** CoinGecko's granularity: 5-minutely for one day, hourly up to 90 days, daily beyond. */
  async history(symbol: PriceSymbol, currency: string, days: number): Promise<PricePoint[]> {
    if (!this.currencies.has(currency)) return [];
    const step = days <= 1 ? 5 * MINUTE : days <= 90 ? HOUR : DAY;
    const end = Math.floor(this.#now() / step) * step;
    const points: PricePoint[] = [];
    for (let time = end - days * DAY; time <= end; time += step) {
      points.push({ time: new Date(time), price: localPrice(symbol, currency, Math.floor(time / MINUTE)) });
    }
    return points;
  }
}

/** The local price of `symbol` in `currency` during minute `minute` since the epoch. */
export function localPrice(symbol: PriceSymbol, currency: string, minute: number): Decimal {
  const { usd: base, driftBp: amplitude, periodMinutes: period } = pricedCoin(symbol).local;
  const t = ((minute % period) + period) % period;
  const triangle = t < period / 2 ? t : period - t; // 0 .. period/2
  const driftBp = Math.floor((triangle * 4 * amplitude) / period) - amplitude;
  const factor: Decimal = { units: BigInt(10_000 + driftBp), scale: 4 };
  const usd = multiply(decimalOf(base), factor);
  return multiply(usd, decimalOf(FX_PER_USD[currency] ?? '1'));
}

function decimalOf(text: string): Decimal {
  return parseDecimal(text)!;
}
