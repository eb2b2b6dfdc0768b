/**
 * Last known quote per symbol and currency. A quote is fresh for `ttlMs` after it was fetched; after
 * that it is still served, flagged stale, while providers fail. A failed fetch is not retried for
 * `retryAfterFailureMs`, so a provider outage does not make every request wait on timeouts.
 */
import type { PriceSymbol } from './symbols.ts';
import type { Quote } from './types.ts';

interface Entry {
  quote: Quote | null;
  /** Clock time of the last successful fetch. */
  fetchedAt: number;
  /** No fetch before this clock time (after a failure). */
  retryAt: number;
}

export interface CachedQuote {
  quote: Quote;
  /** Past the TTL, or flagged by its source. */
  stale: boolean;
}

export class QuoteCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #retryAfterFailureMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; retryAfterFailureMs: number; now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#retryAfterFailureMs = options.retryAfterFailureMs;
    this.#now = options.now;
  }

  /** True when the quote is missing or past its TTL, and no recent failure says to wait. */
  needsFetch(symbol: PriceSymbol, currency: string): boolean {
    const entry = this.#entries.get(key(symbol, currency));
    if (!entry) return true;
    const now = this.#now();
    return now >= entry.retryAt && (entry.quote === null || now - entry.fetchedAt >= this.#ttlMs);
  }

  put(quote: Quote): void {
    this.#entries.set(key(quote.symbol, quote.currency), { quote, fetchedAt: this.#now(), retryAt: 0 });
  }

  /** Keeps the last known quote and holds off the next fetch. */
  markFailed(symbol: PriceSymbol, currency: string): void {
    const k = key(symbol, currency);
    const entry = this.#entries.get(k) ?? { quote: null, fetchedAt: 0, retryAt: 0 };
    this.#entries.set(k, { ...entry, retryAt: this.#now() + this.#retryAfterFailureMs });
  }

  get(symbol: PriceSymbol, currency: string): CachedQuote | null {
    const entry = this.#entries.get(key(symbol, currency));
    if (!entry?.quote) return null;
    const expired = this.#now() - entry.fetchedAt >= this.#ttlMs;
    return { quote: entry.quote, stale: expired || entry.quote.stale };
  }
}

function key(symbol: PriceSymbol, currency: string): string {
  return `${symbol}/${currency}`;
}
