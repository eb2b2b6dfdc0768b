/**
 * Conversion arithmetic. Each side's worth is an exact fraction in one pivot currency; the rate and the
 * result are each one division of exact products, so rounding happens once per figure (to
 * SIGNIFICANT_DIGITS) and the result is not the rounded rate times the amount.
 */
import { type Decimal, divide, multiply, ONE } from './decimal.ts';

/** num / den units of the pivot currency. */
export interface Worth {
  num: Decimal;
  den: Decimal;
}

export const UNIT_WORTH: Worth = { num: ONE, den: ONE };

export function priceWorth(price: Decimal): Worth {
  return { num: price, den: ONE };
}

/** One unit of a fiat F in pivot P, through a reference coin priced in both: price(P) / price(F). */
export function fiatWorth(priceInPivot: Decimal, priceInFiat: Decimal): Worth {
  return { num: priceInPivot, den: priceInFiat };
}

export interface Conversion {
  rate: Decimal;
  result: Decimal;
}

/** rate = from / to; result = amount * from / to, from the exact fraction. */
export function convert(amount: Decimal, from: Worth, to: Worth): Conversion {
  const num = multiply(from.num, to.den);
  const den = multiply(from.den, to.num);
  return { rate: divide(num, den), result: divide(multiply(amount, num), den) };
}
