/**
 * Asks providers in the configured order; each is asked only for the symbols no earlier provider
 * priced freshly. A quote its own source flags stale (an old Chainlink round) is kept only when no
 * later provider has a fresh one.
 */
import type { PriceSymbol } from './symbols.ts';
import type { PriceProvider, Quote } from './types.ts';

export interface ProviderFailure {
  provider: string;
  error: unknown;
}

export interface FallbackResult {
  quotes: Map<PriceSymbol, Quote>;
  failures: ProviderFailure[];
}

export function providerOffers(provider: PriceProvider, currency: string): boolean {
  return provider.currencies === undefined || provider.currencies.has(currency);
}

export async function quoteWithFallback(
  providers: readonly PriceProvider[],
  symbols: readonly PriceSymbol[],
  currency: string,
): Promise<FallbackResult> {
  const fresh = new Map<PriceSymbol, Quote>();
  const staleCandidates = new Map<PriceSymbol, Quote>();
  const failures: ProviderFailure[] = [];
  for (const provider of providers) {
    const missing = symbols.filter((symbol) => !fresh.has(symbol));
    if (missing.length === 0) break;
    if (!providerOffers(provider, currency)) continue;
    let quotes: Quote[];
    try {
      quotes = await provider.quote(missing, currency);
    } catch (error) {
      failures.push({ provider: provider.name, error });
      continue;
    }
    for (const quote of quotes) {
      // A provider may not answer for symbols it was not asked about, nor in another currency.
      if (!missing.includes(quote.symbol) || quote.currency !== currency) continue;
      if (!quote.stale) fresh.set(quote.symbol, quote);
      else if (!staleCandidates.has(quote.symbol)) staleCandidates.set(quote.symbol, quote);
    }
  }
  for (const [symbol, quote] of staleCandidates) if (!fresh.has(symbol)) fresh.set(symbol, quote);
  return { quotes: fresh, failures };
}
