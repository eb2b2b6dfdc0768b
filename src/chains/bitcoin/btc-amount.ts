/** BTC amounts as decimal text <-> satoshis, through the gateway's exact amount parser. */
import { AmountError, assetAmount, parseAmount } from '../amount.ts';

export const BTC_DECIMALS = 8;

/** Satoshis as BTC with all 8 decimals, as every amount reads (`assetAmount`): 10000n → '0.00010000'. */
export function satsToBtc(sats: bigint): string {
  return assetAmount(sats, BTC_DECIMALS);
}

/** BTC decimal text to satoshis ('0.0001' → 10000n, zero allowed); null when it is no BTC amount. */
export function btcToSats(text: string): bigint | null {
  try {
    return parseAmount(text, BTC_DECIMALS, { allowZero: true });
  } catch (error) {
    if (error instanceof AmountError) return null;
    throw error;
  }
}
