/** The prices module's public surface: the service, its factory and config readers, the providers. */
export { BinanceProvider } from './binance.ts';
export {
  type ChainlinkFeed,
  ChainlinkProvider,
  DEFAULT_MAX_AGE_SECONDS,
  readChainlinkFeeds,
} from './chainlink.ts';
export { CoinGeckoProvider } from './coingecko.ts';
export { parseChainlinkFeeds, parsePriceProviders } from './config.ts';
export { type CreatePriceServiceOptions, createPriceService, PRICE_PROVIDER_NAMES } from './factory.ts';
export { LocalPriceProvider } from './local.ts';
export {
  type ConversionView,
  type HistoryPointView,
  PriceService,
  type PriceServiceOptions,
  type PriceView,
} from './service.ts';
export { PRICE_SYMBOLS, type PriceSymbol } from './symbols.ts';
export type { PricePoint, PriceProvider, Quote } from './types.ts';
