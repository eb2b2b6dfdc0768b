/** The fee sponsor's arithmetic: stake per resource as java-tron computes it, and what its own transactions cost. */
import { describe, expect, it } from 'vitest';
import {
  resourceOfStake,
  type SponsorPrices,
  sponsorBill,
  stakeForResource,
} from '../../../src/chains/tron/sponsor-costs.ts';

const TRX = 1_000_000n;
/** Mainnet-like totals: 180 billion energy over 10 billion staked TRX (18 energy per TRX). */
const TOTALS = {
  netLimit: 43_200_000_000n,
  netWeight: 10_000_000_000n,
  energyLimit: 180_000_000_000n,
  energyWeight: 10_000_000_000n,
};
const PRICES: SponsorPrices = {
  energyPriceSun: 100n,
  bandwidthPriceSun: 1000n,
  createAccountFeeSun: 100_000n,
  newAccountFeeSun: TRX,
  newAccountBandwidthRate: 1n,
  freeBandwidth: 600n,
};

describe('stakeForResource', () => {
  it('is the least stake that yields the resource, never under 1 TRX', () => {
    const sun = stakeForResource(64_285n, TOTALS, 'ENERGY')!;
    expect(resourceOfStake(sun, TOTALS.energyLimit, TOTALS.energyWeight)).toBeGreaterThanOrEqual(64_285n);
    expect(resourceOfStake(sun - 1n, TOTALS.energyLimit, TOTALS.energyWeight)).toBeLessThan(64_285n);
    expect(stakeForResource(1n, TOTALS, 'BANDWIDTH')).toBe(TRX);
    expect(stakeForResource(0n, TOTALS, 'ENERGY')).toBe(0n);
  });

  it('cannot say when nobody stakes the resource', () => {
    expect(stakeForResource(10n, { ...TOTALS, energyWeight: 0n }, 'ENERGY')).toBeNull();
  });
});

describe('sponsorBill', () => {
  it('uses staked, then free bandwidth for whole transactions, and burns the rest', () => {
    const bill = sponsorBill(
      [
        { bandwidth: 278n, createsAccount: false },
        { bandwidth: 278n, createsAccount: false },
        { bandwidth: 278n, createsAccount: false },
      ],
      { staked: 0n, free: 600n },
      PRICES,
    );
    expect(bill).toEqual({ expectedSun: 278_000n, maxSun: 834_000n });
  });

  it('pays a new account with staked bandwidth only, else the fixed fee, and always the account fee', () => {
    const tx = [{ bandwidth: 266n, createsAccount: true }];
    expect(sponsorBill(tx, { staked: 0n, free: 600n }, PRICES)).toEqual({
      expectedSun: 1_100_000n,
      maxSun: 1_100_000n,
    });
    expect(sponsorBill(tx, { staked: 300n, free: 0n }, PRICES)).toEqual({
      expectedSun: TRX,
      maxSun: 1_100_000n,
    });
  });
});
