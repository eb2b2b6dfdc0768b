/**
 * PriceService: current prices, conversions and history for the API. Quotes come from a TTL cache
 * that a background refresher keeps warm; a miss asks the providers in order (fallback.ts). When every
 * provider fails, the last known price is served flagged stale; only when nothing was ever known does
 * it answer 503 `Prices unavailable`.
 */
import { AmountError, MAX_DECIMALS, parseAmount } from '../chains/amount.ts';
import { ApiError, invalidField } from '../errors.ts';
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import { type CachedQuote, QuoteCache } from './cache.ts';
import { convert, fiatWorth, priceWorth, UNIT_WORTH, type Worth } from './conversion.ts';
import {
  add,
  type Decimal,
  divide,
  formatDecimal,
  fromUnits,
  HUNDRED,
  ratioToPercentChange,
} from './decimal.ts';
import { providerOffers, quoteWithFallback } from './fallback.ts';
import {
  PRICE_SYMBOLS,
  type PriceSymbol,
  type QuoteCurrency,
  resolveAsset,
  resolveCurrency,
  resolveSymbol,
  resolveSymbolList,
} from './symbols.ts';
import type { PricePoint, PriceProvider } from './types.ts';

/** A price as the API shows it. */
export interface PriceView {
  symbol: PriceSymbol;
  currency: string;
  /** Decimal string. */
  price: string;
  /** Percent over 24 hours, decimal string; null when the source does not say. */
  change_24h: string | null;
  /** When the source last updated the price (ISO). */
  updated_at: string;
  /** Provider name; "a+b" for a cross rate built from two sources. */
  source: string;
  /** True when no provider could refresh the price within the TTL, or the source says it is old. */
  stale: boolean;
}

export interface ConversionView {
  from: string;
  to: string;
  amount: string;
  result: string;
  rate: string;
  /** The oldest update time among the prices used. */
  updated_at: string;
  stale: boolean;
}

export interface HistoryPointView {
  time: string;
  price: string;
}

export interface PriceLogger {
  warn(details: object, message: string): void;
}

export interface PriceServiceOptions {
  /** In order of preference. */
  providers: PriceProvider[];
  /** How long a fetched quote is fresh. Default 30000. */
  ttlMs?: number;
  /** How long a failed fetch holds off the next one (stale prices are served meanwhile). Default 5000. */
  retryAfterFailureMs?: number;
  /** Background refresh period after start(). Default ttlMs / 2, so requests find fresh quotes. */
  refreshIntervalMs?: number;
  /** How long a history answer is reused. Default 300000. */
  historyTtlMs?: number;
  /** Milliseconds clock; tests inject one. */
  now?: () => number;
  logger?: PriceLogger;
}

export const PRICES_UNAVAILABLE = 'Prices unavailable';
export const HISTORY_UNAVAILABLE = 'Price history unavailable';
export const MAX_HISTORY_DAYS = 365;

/** Reference coin for fiat-to-fiat rates: every provider prices it in every currency it offers. */
const REFERENCE_COIN: PriceSymbol = 'BTC';
const MAX_HISTORY_ENTRIES = 200;

export class PriceService {
  readonly #providers: readonly PriceProvider[];
  readonly #cache: QuoteCache;
  readonly #now: () => number;
  readonly #logger: PriceLogger | undefined;
  readonly #refreshIntervalMs: number;
  readonly #historyTtlMs: number;
  /** Fiat currencies the background refresher keeps warm: USD, and any asked for since start. */
  readonly #watched = new Set<string>(['usd']);
  readonly #inflight = new Map<string, { symbols: ReadonlySet<PriceSymbol>; done: Promise<void> }>();
  readonly #history = new Map<string, { points: PricePoint[]; fetchedAt: number }>();
  #timer: NodeJS.Timeout | null = null;
  #refreshing: Promise<void> | null = null;

  constructor(options: PriceServiceOptions) {
    if (options.providers.length === 0) throw new TypeError('PriceService needs at least one provider');
    const ttlMs = options.ttlMs ?? 30_000;
    this.#providers = options.providers;
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
    this.#refreshIntervalMs = options.refreshIntervalMs ?? Math.max(1000, Math.floor(ttlMs / 2));
    this.#historyTtlMs = options.historyTtlMs ?? 300_000;
    this.#cache = new QuoteCache({
      ttlMs,
      retryAfterFailureMs: options.retryAfterFailureMs ?? 5000,
      now: this.#now,
    });
  }

  get providerNames(): string[] {
    return this.#providers.map((provider) => provider.name);
  }

  /** Prices of the listed symbols (comma-separated; empty or undefined: all known) in `currency`. */
  async prices(symbols: string | undefined, currency = 'usd'): Promise<PriceView[]> {
    return this.#views(resolveSymbolList(symbols), resolveCurrency(currency));
  }

  /** At once when the quote is cached: the answer of nearly every request. */
  price(symbol: string, currency = 'usd'): MaybePromise<PriceView> {
    return thenOrNow(this.#views([resolveSymbol(symbol)], resolveCurrency(currency)), ([view]) => view!);
  }

  /** `amount` of `from` in `to`; each side a known symbol or a fiat code. */
  async convert(fromText: string, toText: string, amountText: string): Promise<ConversionView> {
    const from = resolveAsset(fromText);
    const to = resolveAsset(toText);
    const amount = parseClientAmount(amountText);
    const [fromWorth, toWorth, used] = await this.#worths(from, to);
    const { rate, result } = convert(amount, fromWorth, toWorth);
    const oldest = used.reduce<Date | null>(
      (min, p) => (min === null || p.quote.updatedAt < min ? p.quote.updatedAt : min),
      null,
    );
    return {
      from: assetName(from),
      to: assetName(to),
      amount: formatDecimal(amount),
      result: formatDecimal(result),
      rate: formatDecimal(rate),
      updated_at: (oldest ?? new Date(this.#now())).toISOString(),
      stale: used.some((p) => p.stale),
    };
  }

  /** Price points over the last `days` days (1..365), oldest first, from the first provider that has them. */
  async history(symbolText: string, currencyText: string, days: number): Promise<HistoryPointView[]> {
    const symbol = resolveSymbol(symbolText);
    const currency = resolveCurrency(currencyText);
    if (currency.kind !== 'fiat') {
      throw invalidField('currency', 'The currency field must be a fiat currency for price history.');
    }
    if (!Number.isInteger(days) || days < 1 || days > MAX_HISTORY_DAYS) {
      throw invalidField('days', `The days field must be a whole number from 1 to ${MAX_HISTORY_DAYS}.`);
    }
    this.#requireOffered(currency.code, 'currency');
    const key = `${symbol}/${currency.code}/${days}`;
    const cached = this.#history.get(key);
    if (cached && this.#now() - cached.fetchedAt < this.#historyTtlMs) return historyViews(cached.points);
    for (const provider of this.#providers) {
      if (!provider.history || !providerOffers(provider, currency.code)) continue;
      try {
        const points = await provider.history(symbol, currency.code, days);
        if (points.length === 0) continue;
        if (this.#history.size >= MAX_HISTORY_ENTRIES)
          this.#history.delete(this.#history.keys().next().value!);
        this.#history.set(key, { points, fetchedAt: this.#now() });
        return historyViews(points);
      } catch (error) {
        this.#logger?.warn(
          { provider: provider.name, err: describe(error) },
          'price history provider failed',
        );
      }
    }
    if (cached) return historyViews(cached.points);
    throw new ApiError(503, HISTORY_UNAVAILABLE);
  }

  /** Fetches every symbol in every watched currency now, whatever the cache holds. */
  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        for (const currency of this.#watched) await this.#fetch(PRICE_SYMBOLS, currency);
      } finally {
        this.#refreshing = null;
      }
    })();
    return this.#refreshing;
  }

  /** Starts the background refresher (first refresh at once). Idempotent. */
  start(): void {
    if (this.#timer) return;
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#refreshIntervalMs);
    // The refresher alone must not keep the process alive.
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Stops the refresher and closes the providers' connections. */
  /** Closing the providers ends their calls in flight, so a refresh waiting on one ends with them. */
  async close(): Promise<void> {
    this.stop();
    await Promise.allSettled([this.#refreshing, ...this.#providers.map((provider) => provider.close?.())]);
  }

  #views(symbols: PriceSymbol[], currency: QuoteCurrency): MaybePromise<PriceView[]> {
    if (currency.kind === 'fiat') {
      return thenOrNow(this.#quotes(symbols, currency.code, 'currency'), (quotes) =>
        symbols.map((symbol) => quoteView(quotes.get(symbol)!)),
      );
    }
    // A coin as the currency: a cross rate through USD.
    const base = currency.symbol;
    return thenOrNow(this.#quotes([...new Set([...symbols, base])], 'usd', 'currency'), (quotes) => {
      const divisor = quotes.get(base)!;
      return symbols.map((symbol) => crossView(quotes.get(symbol)!, divisor, base));
    });
  }

  /** Cached or fetched quotes for every symbol. @throws ApiError 503 when one was never known. */
  #quotes(symbols: PriceSymbol[], fiat: string, field: string): MaybePromise<Map<PriceSymbol, CachedQuote>> {
    this.#requireOffered(fiat, field);
    if (this.#watched.size < 64) this.#watched.add(fiat);
    const needed = symbols.filter((symbol) => this.#cache.needsFetch(symbol, fiat));
    // Every quote cached: at once, without a promise.
    if (needed.length === 0) return this.#cached(symbols, fiat);
    const running = this.#inflight.get(fiat);
    const fetched =
      running && needed.every((symbol) => running.symbols.has(symbol))
        ? running.done
        : this.#fetch(needed, fiat);
    return fetched.then(() => this.#cached(symbols, fiat));
  }

  /** The cached quote of every symbol. @throws ApiError 503 when one was never known. */
  #cached(symbols: PriceSymbol[], fiat: string): Map<PriceSymbol, CachedQuote> {
    const out = new Map<PriceSymbol, CachedQuote>();
    for (const symbol of symbols) {
      const cached = this.#cache.get(symbol, fiat);
      if (!cached) throw new ApiError(503, PRICES_UNAVAILABLE);
      out.set(symbol, cached);
    }
    return out;
  }

  /** Asks the providers for `symbols` once; concurrent callers for the same symbols share the answer. */
  #fetch(symbols: readonly PriceSymbol[], fiat: string): Promise<void> {
    const done = (async () => {
      const { quotes, failures } = await quoteWithFallback(this.#providers, symbols, fiat);
      for (const quote of quotes.values()) this.#cache.put(quote);
      for (const symbol of symbols) if (!quotes.has(symbol)) this.#cache.markFailed(symbol, fiat);
      if (failures.length > 0) {
        this.#logger?.warn(
          {
            currency: fiat,
            failures: failures.map((f) => ({ provider: f.provider, err: describe(f.error) })),
          },
          'price provider failed',
        );
      }
    })();
    const entry = { symbols: new Set(symbols), done };
    if (!this.#inflight.has(fiat)) {
      this.#inflight.set(fiat, entry);
      void done.finally(() => {
        if (this.#inflight.get(fiat) === entry) this.#inflight.delete(fiat);
      });
    }
    return done;
  }

  /**
   * Both sides' worth in one pivot currency: the target fiat, else the source fiat, else USD, so a
   * coin-to-fiat rate uses the provider's own price in that fiat. Also returns the quotes used.
   */
  async #worths(from: QuoteCurrency, to: QuoteCurrency): Promise<[Worth, Worth, CachedQuote[]]> {
    if (isSame(from, to)) return [UNIT_WORTH, UNIT_WORTH, []];
    const pivot = to.kind === 'fiat' ? to.code : from.kind === 'fiat' ? from.code : 'usd';
    const pivotField = to.kind === 'fiat' ? 'to' : from.kind === 'fiat' ? 'from' : 'to';
    // Every coin needed in the pivot, in one provider round: the two sides and the reference coin.
    const coins = new Set<PriceSymbol>();
    for (const side of [from, to]) {
      if (side.kind === 'coin') coins.add(side.symbol);
      else if (side.code !== pivot) coins.add(REFERENCE_COIN);
    }
    const inPivot = await this.#quotes([...coins], pivot, pivotField);
    const used: CachedQuote[] = [...inPivot.values()];
    const worth = async (side: QuoteCurrency, field: string): Promise<Worth> => {
      if (side.kind === 'coin') return priceWorth(inPivot.get(side.symbol)!.quote.price);
      if (side.code === pivot) return UNIT_WORTH;
      // Another fiat: through the reference coin priced in both currencies.
      const inFiat = (await this.#quotes([REFERENCE_COIN], side.code, field)).get(REFERENCE_COIN)!;
      used.push(inFiat);
      return fiatWorth(inPivot.get(REFERENCE_COIN)!.quote.price, inFiat.quote.price);
    };
    return [await worth(from, 'from'), await worth(to, 'to'), used];
  }

  /** @throws ApiError 422 when no configured provider offers the fiat currency. */
  #requireOffered(fiat: string, field: string): void {
    if (!this.#providers.some((provider) => providerOffers(provider, fiat))) {
      throw invalidField(field, `No configured price provider offers ${fiat.toUpperCase()}.`);
    }
  }
}

/** A quote's view, kept while the quote is the cached one: a cached read formats nothing. */
const quoteViews = new WeakMap<CachedQuote['quote'], { stale: boolean; view: PriceView }>();

function quoteView({ quote, stale }: CachedQuote): PriceView {
  const kept = quoteViews.get(quote);
  if (kept !== undefined && kept.stale === stale) return kept.view;
  const view = {
    symbol: quote.symbol,
    currency: quote.currency,
    price: formatDecimal(quote.price),
    change_24h: quote.change24h === null ? null : formatDecimal(quote.change24h),
    updated_at: quote.updatedAt.toISOString(),
    source: quote.source,
    stale,
  };
  quoteViews.set(quote, { stale, view });
  return view;
}

/** `priced` in units of `base` (both quoted in USD); the 24h change follows from both changes. */
function crossView(priced: CachedQuote, divisor: CachedQuote, base: PriceSymbol): PriceView {
  const a = priced.quote;
  const b = divisor.quote;
  let change: Decimal | null = null;
  if (a.change24h !== null && b.change24h !== null) {
    // (1 + ca/100) / (1 + cb/100) - 1, in percent.
    change = ratioToPercentChange(divide(add(HUNDRED, a.change24h), add(HUNDRED, b.change24h)));
  }
  return {
    symbol: a.symbol,
    currency: base.toLowerCase(),
    price: formatDecimal(divide(a.price, b.price)),
    change_24h: change === null ? null : formatDecimal(change),
    updated_at: new Date(Math.min(a.updatedAt.getTime(), b.updatedAt.getTime())).toISOString(),
    source: a.source === b.source ? a.source : `${a.source}+${b.source}`,
    stale: priced.stale || divisor.stale,
  };
}

function historyViews(points: readonly PricePoint[]): HistoryPointView[] {
  return points.map((point) => ({ time: point.time.toISOString(), price: formatDecimal(point.price) }));
}

/** The client's amount, exactly, through the project's one amount parser (30 decimals at most). */
function parseClientAmount(text: string): Decimal {
  try {
    return fromUnits(parseAmount(text, MAX_DECIMALS, { allowZero: true }), MAX_DECIMALS);
  } catch (error) {
    if (error instanceof AmountError) throw invalidField('amount', error.message);
    throw error;
  }
}

function assetName(asset: QuoteCurrency): string {
  return asset.kind === 'coin' ? asset.symbol : asset.code.toUpperCase();
}

function isSame(a: QuoteCurrency, b: QuoteCurrency): boolean {
  return assetName(a) === assetName(b);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
