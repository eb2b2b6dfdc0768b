/**
 * Bitcoin fee rates as integers: satoshis per 1000 vB (Bitcoin Core's sat/kvB), so 1.5 sat/vB is 1500n
 * and no fee is ever computed through a float.
 */
import { formatAmount, parseAmount } from '../amount.ts';

export type FeeRate = bigint;

/** Bitcoin Core's default minimum relay fee rate: 1 sat/vB. */
export const MIN_RELAY_FEE_RATE: FeeRate = 1000n;

/**
 * A fee rate from sat/vB as decimal text or a JSON number with up to 3 decimals ('1.5' → 1500n).
 * Throws AmountError for anything else, zero included.
 */
export function feeRateFromSatPerVb(input: string | number): FeeRate {
  return parseAmount(input, 3);
}

/** The rate in sat/vB as minimal decimal text (1500n → '1.5'). */
export function satPerVbText(rate: FeeRate): string {
  return formatAmount(rate, 3);
}

/** The fee of `vsize` virtual bytes at `rate`, rounded up to a whole satoshi. */
export function feeFor(vsize: number, rate: FeeRate): bigint {
  if (!Number.isSafeInteger(vsize) || vsize < 0)
    throw new RangeError(`vsize must be a whole number, got ${vsize}`);
  return (BigInt(vsize) * rate + 999n) / 1000n;
}

/** The rate, or the minimum relay rate when it is below (nodes would not relay the transaction). */
export function atLeastMinRelay(rate: FeeRate): FeeRate {
  if (rate < MIN_RELAY_FEE_RATE) return MIN_RELAY_FEE_RATE;
  return rate;
}
