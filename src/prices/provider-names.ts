/** The price providers PRICE_PROVIDERS may name. */
export const PRICE_PROVIDER_NAMES = ['coingecko', 'binance', 'chainlink', 'local'] as const;
export type PriceProviderName = (typeof PRICE_PROVIDER_NAMES)[number];
