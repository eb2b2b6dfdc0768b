/** The shapes every price provider speaks, so the service can try them in order and fall back. */
import type { Decimal } from './decimal.ts';
import type { PriceSymbol } from './symbols.ts';

/** One price of one symbol in one fiat currency, as a provider reported it. */
export interface Quote {
  symbol: PriceSymbol;
  /** Lower-case fiat code. */
  currency: string;
  price: Decimal;
  /** Percent change over 24 hours (3.5 means +3.5 %); null when the source does not say. */
  change24h: Decimal | null;
  /** When the source last updated the price (not when we fetched it). */
  updatedAt: Date;
  /** Provider name. */
  source: string;
  /** The source itself says the price is old (a Chainlink round past its threshold). */
  stale: boolean;
}

export interface PricePoint {
  time: Date;
  price: Decimal;
}

export interface PriceProvider {
  readonly name: string;
  /**
   * Fiat currencies (lower case) this provider can price in; undefined: any fiat code. The service
   * skips a provider for other currencies instead of asking it.
   */
  readonly currencies?: ReadonlySet<string>;
  /**
   * Quotes for as many of `symbols` as the provider knows, in `currency`; symbols it cannot price are
   * simply missing from the answer. Rejects when the provider cannot be reached or answers nonsense.
   */
  quote(symbols: readonly PriceSymbol[], currency: string): Promise<Quote[]>;
  /** Price points over the last `days` days, oldest first; absent when the provider has no history. */
  history?(symbol: PriceSymbol, currency: string, days: number): Promise<PricePoint[]>;
  /** Releases connections. */
  close?(): Promise<void>;
}

/** A provider answered, but not in the shape its documentation promises. */
export class PriceProviderResponseError extends Error {
  override readonly name = 'PriceProviderResponseError';

  constructor(provider: string, message: string, options?: ErrorOptions) {
    super(`${provider}: ${message}`, options);
  }
}
