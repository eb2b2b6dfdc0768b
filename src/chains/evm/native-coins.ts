/**
 * The EVM chains' native coins as the price API quotes them, by symbol: several chains share one (ETH on
 * Ethereum and Arbitrum), and a chain names its coin's price symbol in the chain table (`priceSymbol`).
 */
import type { PricedCoin } from '../family.ts';
import { evmChains } from './chains.ts';

const NATIVE_COINS: Readonly<Record<string, PricedCoin>> = {
  ETH: {
    symbol: 'ETH',
    order: 20,
    coingeckoId: 'ethereum',
    binancePair: 'ETHUSDT',
    local: { usd: '3500', driftBp: 100, periodMinutes: 461 },
  },
  BNB: {
    symbol: 'BNB',
    order: 50,
    coingeckoId: 'binancecoin',
    binancePair: 'BNBUSDT',
    local: { usd: '580', driftBp: 100, periodMinutes: 641 },
  },
  POL: {
    symbol: 'POL',
    // Polygon renamed MATIC to POL in September 2024; the old ticker is still asked for.
    aliases: ['MATIC'],
    order: 60,
    coingeckoId: 'polygon-ecosystem-token',
    binancePair: 'POLUSDT',
    local: { usd: '0.55', driftBp: 100, periodMinutes: 709 },
  },
};

/** The coin a chain pays in, where the price API knows it. */
export function evmNativeCoin(symbol: string): PricedCoin | undefined {
  return NATIVE_COINS[symbol];
}

/** Every served EVM chain's native coin the price API knows, once each. */
export function evmPriceCoins(): PricedCoin[] {
  const symbols = new Set([...evmChains().values()].map((chain) => chain.priceSymbol));
  return [...symbols].flatMap((symbol) => NATIVE_COINS[symbol] ?? []);
}
