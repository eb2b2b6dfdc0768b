import { assetAmount } from '../amount.ts';

/** 1 TRX is 1,000,000 sun. */
export const TRX_DECIMALS = 6;

/** `1.000000`: a sun amount in TRX with all six decimals, as every amount reads (`assetAmount`). */
export function trxText(sun: bigint): string {
  return assetAmount(sun, TRX_DECIMALS);
}
