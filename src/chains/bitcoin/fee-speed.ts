/**
 * The fee rate of a send: the caller's own `feerate` (sat/vB), or the node's estimate for the `speed`
 * asked, never below the minimum relay fee rate.
 */
import { invalidField } from '../../errors.ts';
import { atLeastMinRelay, type FeeRate, feeRateFromSatPerVb, MIN_RELAY_FEE_RATE } from './fee-rate.ts';

export const SPEEDS = ['fast', 'medium', 'slow'] as const;
export type Speed = (typeof SPEEDS)[number];

/** Blocks within which each speed aims to confirm: the next block, about half an hour, about an hour. */
export const SPEED_TARGETS: Readonly<Record<Speed, number>> = { fast: 1, medium: 3, slow: 6 };

/** The most a caller may ask for, in sat/vB: far above any fee market, well below a typo's cost. */
export const MAX_FEE_RATE_SAT_VB = 10_000;

/** The caller's `feerate` in sat per 1000 vB; a 422 on the field when it is no rate we would pay. */
export function feeRateField(value: unknown): FeeRate {
  const rate = typeof value === 'string' || typeof value === 'number' ? rateOrNull(value) : null;
  if (rate === null || rate < MIN_RELAY_FEE_RATE || rate > BigInt(MAX_FEE_RATE_SAT_VB) * 1000n) {
    throw invalidField(
      'feerate',
      `The feerate field must be a fee rate in sat/vB from 1 to ${MAX_FEE_RATE_SAT_VB}, with at most 3 decimals.`,
    );
  }
  return rate;
}

/**
 * The estimate for a speed from the node's table (target in blocks -> sat/vB): the one for the speed's
 * target, or the nearest slower target the node gives, or the fastest it gives.
 */
export function rateForSpeed(speed: Speed, estimates: Readonly<Record<number, number>>): FeeRate {
  const targets = Object.keys(estimates)
    .map(Number)
    .filter((target) => Number.isInteger(target) && target > 0)
    .sort((a, b) => a - b);
  const wanted = SPEED_TARGETS[speed];
  const target = targets.find((t) => t >= wanted) ?? targets.at(-1);
  const satPerVb = target === undefined ? undefined : estimates[target];
  // A node without estimates (a fresh regtest, a quiet signet) leaves the minimum relay rate.
  const rate = satPerVb === undefined ? null : rateOrNull(satPerVb.toFixed(3));
  return rate === null ? MIN_RELAY_FEE_RATE : atLeastMinRelay(rate);
}

function rateOrNull(value: string | number): FeeRate | null {
  try {
    return feeRateFromSatPerVb(value);
  } catch {
    return null;
  }
}
