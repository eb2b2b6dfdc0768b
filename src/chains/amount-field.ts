/** A request's `amount` field read into base units; a malformed or too large one is a 422 naming the field. */
import { invalidField } from '../errors.ts';
import { formatAmount, parseAmount } from './amount.ts';

/** The amount in base units of an asset with `decimals`, or a 422 on the amount field. */
export function amountField(raw: unknown, decimals: number): bigint {
  try {
    return parseAmount(raw, decimals);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}

/**
 * The amount in base units, at most `max` (the largest the chain's amounts hold), or a 422 on the amount
 * field; `tooLarge` words the refusal from `max` written in the asset's units.
 */
export function boundedAmountField(
  raw: unknown,
  decimals: number,
  max: bigint,
  tooLarge: (most: string) => string,
): bigint {
  const units = amountField(raw, decimals);
  if (units > max) throw invalidField('amount', tooLarge(formatAmount(max, decimals)));
  return units;
}
