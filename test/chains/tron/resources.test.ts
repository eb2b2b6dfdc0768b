import { describe, expect, it } from 'vitest';
import {
  bandwidthOf,
  estimateFees,
  groupDigits,
  normalizeAccountResources,
  preflightProblems,
} from '../../../src/chains/tron/resources.ts';
import type { TronAccountResources } from '../../../src/chains/tron/types.ts';
import http from '../../vectors/tron_http_responses.json' with { type: 'json' };
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

describe('bandwidth of a signed transaction', () => {
  const real = vectors.signed.filter(
    (v): v is typeof v & { net_usage: number } =>
      'net_usage' in v && typeof v.net_usage === 'number' && v.net_usage > 0,
  );
  it.each(real.map((v) => [v.name, v] as const))('%s: matches the net_usage the chain charged', (_n, v) => {
    expect(bandwidthOf(BigInt(v.raw_data_hex.length / 2), v.signature.length)).toBe(BigInt(v.net_usage));
  });
});

describe('account resources', () => {
  it('normalizes the documented getaccount + getaccountresource answers', () => {
    const account = { ...http.getaccount.response } as Record<string, unknown>;
    account['frozenV2'] = [
      { amount: 5_000_000 },
      { type: 'ENERGY', amount: 1_000_000_000 },
      { type: 'TRON_POWER' },
    ];
    account['account_resource'] = {
      ...(account['account_resource'] as object),
      delegated_frozenV2_balance_for_energy: 7,
    };
    account['acquired_delegated_frozenV2_balance_for_bandwidth'] = 3;
    account['unfrozenV2'] = [{ unfreeze_amount: 2_000_000, unfreeze_expire_time: 1777445307000 }];
    const r = normalizeAccountResources(
      http.getaccount.response.address,
      account,
      http.getaccountresource.response,
    );
    expect(r).toEqual({
      address: 'TWAFRfZFmhVQZjxM3De7Mp5UZ9sLqWqpHp',
      exists: true,
      balance: 1793227200n,
      freeBandwidthLimit: 600n,
      freeBandwidthUsed: 441n,
      stakedBandwidthLimit: 0n,
      stakedBandwidthUsed: 0n,
      energyLimit: 0n,
      energyUsed: 0n,
      frozenV2: { bandwidth: 5_000_000n, energy: 1_000_000_000n, tronPower: 0n },
      delegated: { bandwidthOut: 0n, energyOut: 7n, bandwidthIn: 3n, energyIn: 0n },
      unfreezing: [{ resource: 'BANDWIDTH', amount: 2_000_000n, expireTime: 1777445307000n }],
    });
  });

  it('an unknown account is all zeros', () => {
    const r = normalizeAccountResources('TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', {}, {});
    expect(r.exists).toBe(false);
    expect(r.balance).toBe(0n);
    expect(r.frozenV2).toEqual({ bandwidth: 0n, energy: 0n, tronPower: 0n });
  });
});

function account(partial: Partial<TronAccountResources>): TronAccountResources {
  return {
    ...normalizeAccountResources('TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', {}, {}),
    exists: true,
    ...partial,
  };
}

const prices = { energyPriceSun: 210n, bandwidthPriceSun: 1000n };

/** The fees of a 345-byte TRC20 call needing `energy`, from an account holding `resources`. */
const feesOf = (energy: bigint, resources: Partial<TronAccountResources>, revert: string | null = null) =>
  estimateFees({ energy, bandwidth: 345n, resources: account(resources), prices, revert });

describe('fees and pre-flight', () => {
  it('an empty account burns TRX for all energy and, with no free bandwidth left, for every byte', () => {
    const estimate = feesOf(64_285n, {
      balance: 1_200_000n,
      freeBandwidthLimit: 600n,
      freeBandwidthUsed: 400n,
    });
    expect(estimate.energyFeeSun).toBe(13_499_850n);
    expect(estimate.bandwidthFeeSun).toBe(345_000n);
    expect(estimate.trxNeededSun).toBe(13_844_850n);
    expect(estimate.bandwidthAvailable).toBe(200n);
    expect(preflightProblems(estimate, 10_000_000n)).toEqual([
      'needs 64,285 energy but has 0; burning it costs 13.49985 TRX, more than fee_limit 10 TRX',
      'has 1.2 TRX but needs 13.84485 TRX for energy and bandwidth',
    ]);
  });

  it('staked energy and free bandwidth that cover the call cost nothing', () => {
    const estimate = feesOf(29_000n, { energyLimit: 50_000n, energyUsed: 1_000n, freeBandwidthLimit: 600n });
    expect(estimate.trxNeededSun).toBe(0n);
    expect(preflightProblems(estimate, 1n)).toEqual([]);
  });

  it('part of the energy from stake, the rest bought; staked bandwidth used whole', () => {
    const estimate = feesOf(30_000n, {
      balance: 100_000_000n,
      energyLimit: 10_000n,
      stakedBandwidthLimit: 1_000n,
      stakedBandwidthUsed: 600n,
    });
    expect(estimate.energyFeeSun).toBe(20_000n * 210n);
    expect(estimate.bandwidthFeeSun).toBe(0n);
    expect(preflightProblems(estimate, 50_000_000n)).toEqual([]);
  });

  it('a reverting dry run is reported first', () => {
    const estimate = feesOf(
      500n,
      { balance: 100_000_000n, freeBandwidthLimit: 600n },
      'ERC20: transfer amount exceeds balance',
    );
    expect(preflightProblems(estimate, 50_000_000n)).toEqual([
      'the contract rejects this transfer: ERC20: transfer amount exceeds balance',
    ]);
  });

  it('groups digits', () => {
    expect(groupDigits(0n)).toBe('0');
    expect(groupDigits(999n)).toBe('999');
    expect(groupDigits(64285n)).toBe('64,285');
    expect(groupDigits(1234567890n)).toBe('1,234,567,890');
  });
});
