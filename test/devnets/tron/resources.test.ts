import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHAIN_PARAMS } from '../../../devnets/tron/params.ts';
import {
  AccountResourceInsufficientError,
  consumeBandwidth,
  increase,
  MAX_RESULT_SIZE_IN_TX,
  netLimitOf,
  WINDOW_SLOTS,
} from '../../../devnets/tron/resources.ts';
import { emptyWorld, newAccount } from '../../../devnets/tron/state.ts';
import { decodeRaw, encodeTransaction } from '../../../devnets/tron/transaction.ts';
import vectors from '../../vectors/tron_vectors.json' with { type: 'json' };

describe('usage window (ResourceProcessor.increase)', () => {
  it('adds usage at the same slot and decays linearly over 28 800 slots', () => {
    expect(increase(0n, 300n, 0n, 0n)).toBe(300n);
    expect(increase(300n, 200n, 10n, 10n)).toBe(500n);
    expect(increase(600n, 0n, 0n, WINDOW_SLOTS / 2n)).toBe(300n);
    expect(increase(600n, 0n, 0n, WINDOW_SLOTS)).toBe(0n);
    expect(increase(600n, 100n, 0n, (WINDOW_SLOTS * 3n) / 4n)).toBe(250n);
  });
});

describe('bandwidth (BandwidthProcessor.consume)', () => {
  const owner = '41'.padEnd(42, '1');
  const ctx = (balance: bigint) => {
    const world = emptyWorld();
    const a = newAccount(owner, 0n);
    a.balance = balance;
    world.accounts.set(owner, a);
    return { world, params: DEFAULT_CHAIN_PARAMS, now: 100n, headTime: 300_000n, txId: 'ab' };
  };

  it('reproduces the net_usage of real mainnet transactions from their signed size', () => {
    for (const v of vectors.signed.filter((s) => 'net_usage' in s && s.net_usage)) {
      const raw = decodeRaw(hexToBytes(v.raw_data_hex as string));
      const size = encodeTransaction({
        raw,
        signatures: v.signature!.map((s) => hexToBytes(s)),
        ret: [],
      }).length;
      const c = ctx(0n);
      const bill = consumeBandwidth(c, owner, BigInt(size) + MAX_RESULT_SIZE_IN_TX, null);
      expect(bill).toEqual({ netUsage: BigInt((v as { net_usage: number }).net_usage), netFee: 0n });
    }
  });

  it('uses free bandwidth, then burns 1000 sun per byte, then refuses', () => {
    const c = ctx(300_000n);
    expect(consumeBandwidth(c, owner, 500n, null)).toEqual({ netUsage: 500n, netFee: 0n });
    expect(consumeBandwidth(c, owner, 200n, null)).toEqual({ netUsage: 0n, netFee: 200_000n });
    expect(c.world.accounts.get(owner)?.balance).toBe(100_000n);
    expect(() => consumeBandwidth(c, owner, 200n, null)).toThrow(AccountResourceInsufficientError);
  });

  it('a transfer that creates an account pays the 0.1 TRX creation bandwidth fee (the 1.1 TRX vector)', () => {
    const c = ctx(1_000_000n);
    expect(consumeBandwidth(c, owner, 268n, { bytesWithoutSignatures: 139n })).toEqual({
      netUsage: 0n,
      netFee: 100_000n,
    });
  });

  it('staked bandwidth is proportional to the share of the network stake', () => {
    const c = ctx(0n);
    const a = c.world.accounts.get(owner)!;
    a.frozenV2.BANDWIDTH = 1_000_000_000n; // 1000 TRX, the whole network stake
    expect(netLimitOf(c.world, c.params, a)).toBe(DEFAULT_CHAIN_PARAMS.totalNetLimit);
    const other = newAccount('41'.padEnd(42, '2'), 0n);
    other.frozenV2.BANDWIDTH = 3_000_000_000n;
    c.world.accounts.set(other.address, other);
    expect(netLimitOf(c.world, c.params, a)).toBe(DEFAULT_CHAIN_PARAMS.totalNetLimit / 4n);
  });
});
