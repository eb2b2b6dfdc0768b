// Child pays for parent: the fee of a send spending unconfirmed change, so that its package (itself and
// the ancestors paying less than the rate) pays the rate asked; and the mempool's chain limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { feeFor } from '../../../src/chains/bitcoin/fee-rate.ts';
import { ancestorShortfall, packageFee } from '../../../src/chains/bitcoin/package-fee.ts';
import {
  chainTooLong,
  MEMPOOL_ANCESTOR_LIMIT,
  MEMPOOL_ANCESTOR_VSIZE_LIMIT,
  type UnconfirmedTx,
} from '../../../src/chains/bitcoin/unconfirmed-chain.ts';

/** 5 sat/vB. */
const RATE = 5_000n;

describe('package fee (CPFP)', () => {
  it('without unconfirmed ancestors, the child pays its own rate', () => {
    expect(packageFee(141, [], RATE)).toBe(705n);
    expect(ancestorShortfall([], RATE)).toBe(0n);
  });

  it('pays what a parent at 1 sat/vB lacks: (parent fee + child fee) / (both vsizes) reaches the rate', () => {
    const parent = { vsize: 141, fee: 141n };
    const fee = packageFee(110, [parent], RATE);
    // 5 sat/vB of 251 vB, less the parent's 141 sat.
    expect(fee).toBe(1255n - 141n);
    expect((parent.fee + fee) * 1000n).toBeGreaterThanOrEqual(BigInt(parent.vsize + 110) * RATE);
    expect(ancestorShortfall([parent], RATE)).toBe(feeFor(141, RATE) - 141n);
  });

  it('leaves out ancestors that pay the rate on their own: their surplus does not lift the child', () => {
    const rich = { vsize: 141, fee: 100_000n };
    const poor = { vsize: 141, fee: 141n };
    expect(packageFee(110, [rich], RATE)).toBe(feeFor(110, RATE));
    expect(packageFee(110, [rich, poor], RATE)).toBe(packageFee(110, [poor], RATE));
    expect(ancestorShortfall([rich, poor], RATE)).toBe(ancestorShortfall([poor], RATE));
  });

  it('the package of the lagging ancestors and the child always reaches the rate, and the child its own', () => {
    const ancestor = fc.record({ vsize: fc.integer({ min: 60, max: 5_000 }), fee: fc.bigInt(0n, 50_000n) });
    fc.assert(
      fc.property(
        fc.array(ancestor, { maxLength: 24 }),
        fc.integer({ min: 60, max: 5_000 }),
        fc.bigInt(1_000n, 100_000n),
        (ancestors, childVsize, rate) => {
          const fee = packageFee(childVsize, ancestors, rate);
          expect(fee).toBeGreaterThanOrEqual(feeFor(childVsize, rate));
          const lagging = ancestors.filter((a) => a.fee < feeFor(a.vsize, rate));
          const vsize = lagging.reduce((sum, a) => sum + a.vsize, childVsize);
          const paid = lagging.reduce((sum, a) => sum + a.fee, fee);
          expect(paid * 1000n).toBeGreaterThanOrEqual(BigInt(vsize) * rate);
          // What coin selection charges (own fee + shortfall) is never below it, and at most 1 sat above.
          const charged = feeFor(childVsize, rate) + ancestorShortfall(ancestors, rate);
          expect(charged).toBeGreaterThanOrEqual(fee);
          expect(charged - fee).toBeLessThanOrEqual(1n);
        },
      ),
    );
  });
});

describe('mempool chain limits', () => {
  const chain = (length: number, vsize = 141) =>
    new Map<string, UnconfirmedTx>(
      Array.from({ length }, (_, i) => [`${i}`, { txid: `${i}`, vsize, fee: 141n }] as const),
    );

  it('allows a payment with 24 unconfirmed ancestors (25 with itself) and refuses one with 25', () => {
    expect(MEMPOOL_ANCESTOR_LIMIT).toBe(25);
    expect(chainTooLong(chain(24), 141)).toBeNull();
    const refused = chainTooLong(chain(25), 141);
    expect(refused?.status).toBe(422);
    expect(refused?.message).toBe(
      'Unconfirmed chain too long: the payment would have 25 unconfirmed ancestors, the mempool allows 24 (25 with the payment); wait for the next block',
    );
  });

  it('refuses a package over 101 kvB', () => {
    expect(chainTooLong(chain(10, 10_000), 1_000)).toBeNull();
    const refused = chainTooLong(chain(10, 10_000), 1_001);
    expect(refused?.message).toBe(
      `Unconfirmed chain too long: the payment and its unconfirmed ancestors would be 101001 vB, the mempool allows ${MEMPOOL_ANCESTOR_VSIZE_LIMIT} vB; wait for the next block`,
    );
  });
});
