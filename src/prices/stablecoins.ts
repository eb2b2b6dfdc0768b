/**
 * The common stablecoins the price API quotes beside the families' own coins: tokens on many chains,
 * so no family's to declare.
 */
import type { PricedCoin } from '../chains/family.ts';

export const STABLECOINS: readonly PricedCoin[] = [
  {
    symbol: 'USDT',
    order: 70,
    coingeckoId: 'tether',
    // Binance quotes every pair in USDT itself (binance.ts prices it at 1 USD), so it has none.
    local: { usd: '1', driftBp: 5, periodMinutes: 773 },
  },
  {
    symbol: 'USDC',
    order: 80,
    coingeckoId: 'usd-coin',
    binancePair: 'USDCUSDT',
    local: { usd: '1', driftBp: 5, periodMinutes: 839 },
  },
];
