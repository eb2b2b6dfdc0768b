/**
 * Child pays for parent (CPFP): a transaction spending unconfirmed outputs is mined together with its
 * unconfirmed ancestors, at the fee rate of the whole package (Bitcoin Core's ancestor score). A send
 * spending its own unconfirmed change pays what its ancestors lack, so the package reaches the rate asked.
 */
import { type FeeRate, feeFor } from './fee-rate.ts';

/** One unconfirmed ancestor: its own fee and virtual size. */
export interface AncestorFee {
  vsize: number;
  fee: bigint;
}

/** The ancestor pays at least `rate` on its own: miners take it without help. */
const paysRate = (ancestor: AncestorFee, rate: FeeRate) => ancestor.fee >= feeFor(ancestor.vsize, rate);

/**
 * What the ancestors below `rate` lack to pay it: the extra fee a child adds beyond its own
 * feeFor(childVsize, rate). Ancestors already paying the rate are left out, as their surplus is mined
 * with them and does not lift the others. 0n when none lags.
 */
export function ancestorShortfall(ancestors: Iterable<AncestorFee>, rate: FeeRate): bigint {
  let vsize = 0;
  let fee = 0n;
  for (const ancestor of ancestors) {
    if (paysRate(ancestor, rate)) continue;
    vsize += ancestor.vsize;
    fee += ancestor.fee;
  }
  const shortfall = feeFor(vsize, rate) - fee;
  return shortfall > 0n ? shortfall : 0n;
}

/**
 * The child's fee for its package to reach `rate`: (fees of the lagging ancestors + child fee) /
 * (their vsize + child vsize) ≥ rate, and never below the child's own feeFor(childVsize, rate).
 */
export function packageFee(childVsize: number, ancestors: Iterable<AncestorFee>, rate: FeeRate): bigint {
  const lagging = [...ancestors].filter((ancestor) => !paysRate(ancestor, rate));
  const vsize = lagging.reduce((total, ancestor) => total + ancestor.vsize, childVsize);
  const fee = lagging.reduce((total, ancestor) => total + ancestor.fee, 0n);
  const own = feeFor(childVsize, rate);
  const forPackage = feeFor(vsize, rate) - fee;
  // bigint: no Math.max.
  if (forPackage < own) return own;
  return forPackage;
}
