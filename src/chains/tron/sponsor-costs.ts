/**
 * The arithmetic of Tron's fee sponsor, without the node: how much stake yields a given amount of energy
 * or bandwidth (java-tron's Stake 2.0 formula), how many bytes of bandwidth the sponsor's own system
 * transactions take, and what those cost it when it has no bandwidth left.
 */
import { bandwidthOf, varintLength } from './resources.ts';
import type { TronResource, TronResourceTotals } from './types.ts';

const TRX = 1_000_000n;
/** Guards the search for the smallest stake against a pathological double rounding. */
const MAX_STAKE_STEPS = 10_000;

/**
 * The resource `sun` of stake yields, as the node computes it: java-tron's calculateGlobal*LimitV2 is
 * `(long) (sun / 1e6 * ((double) totalLimit / totalWeight))`; the exact integer quotient is taken too,
 * and the smaller of both, so a stake that suffices for one reading suffices for the other.
 */
export function resourceOfStake(sun: bigint, totalLimit: bigint, totalWeight: bigint): bigint {
  if (totalWeight <= 0n) return 0n;
  const exact = (sun * totalLimit) / (TRX * totalWeight);
  const double = BigInt(Math.trunc((Number(sun) / 1e6) * (Number(totalLimit) / Number(totalWeight))));
  return exact < double ? exact : double;
}

/**
 * The least sun of stake whose delegation gives `units` of the resource (at least 1 TRX, the smallest
 * delegation java-tron takes); 0 for none; null when nobody stakes it (no weight to divide).
 */
export function stakeForResource(
  units: bigint,
  totals: TronResourceTotals,
  resource: TronResource,
): bigint | null {
  if (units <= 0n) return 0n;
  const [limit, weight] =
    resource === 'ENERGY' ? [totals.energyLimit, totals.energyWeight] : [totals.netLimit, totals.netWeight];
  if (weight <= 0n || limit <= 0n) return null;
  let sun = ceilDiv(units * TRX * weight, limit);
  if (sun < TRX) sun = TRX;
  for (let step = 0; resourceOfStake(sun, limit, weight) < units; step++) {
    if (step >= MAX_STAKE_STEPS) return null;
    sun++;
  }
  return sun;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** The sponsor's system transactions, by their contract (java-tron's ContractType numbers). */
export type SponsorContract =
  | { type: 'AccountCreateContract' }
  | { type: 'TransferContract'; amount: bigint }
  | { type: 'TransferAssetContract'; tokenId: string; amount: bigint }
  | { type: 'DelegateResourceContract'; resource: TronResource; balance: bigint }
  | { type: 'UnDelegateResourceContract'; resource: TronResource; balance: bigint };

const CONTRACT_NUMBER: Record<SponsorContract['type'], bigint> = {
  AccountCreateContract: 0n,
  TransferContract: 1n,
  TransferAssetContract: 2n,
  DelegateResourceContract: 57n,
  UnDelegateResourceContract: 58n,
};

/** A length-delimited field with a one-byte tag. */
const bytesField = (length: bigint) => 1n + varintLength(length) + length;
/** A varint field with a one-byte tag; proto3 leaves a zero out. */
const varintField = (value: bigint) => (value === 0n ? 0n : 1n + varintLength(value));
const ADDRESS_FIELD = bytesField(21n);

function valueBytes(contract: SponsorContract): bigint {
  switch (contract.type) {
    case 'AccountCreateContract':
      return 2n * ADDRESS_FIELD;
    case 'TransferContract':
      return 2n * ADDRESS_FIELD + varintField(contract.amount);
    case 'TransferAssetContract':
      return bytesField(BigInt(contract.tokenId.length)) + 2n * ADDRESS_FIELD + varintField(contract.amount);
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract':
      // resource: BANDWIDTH is enum 0 (left out), ENERGY 1; `lock` false is left out.
      return (
        2n * ADDRESS_FIELD +
        varintField(contract.resource === 'ENERGY' ? 1n : 0n) +
        varintField(contract.balance)
      );
  }
}

/**
 * Bandwidth (bytes) of one signed single-contract system transaction as the node builds it: raw_data
 * with ref_block_bytes, ref_block_hash, expiration, the contract and timestamp (both times in ms, so
 * their varints have the length of now's), one signature, and the 64 result bytes.
 */
export function systemTransactionBandwidth(contract: SponsorContract, nowMs = Date.now()): bigint {
  const typeUrl = BigInt(`type.googleapis.com/protocol.${contract.type}`.length);
  const any = bytesField(typeUrl) + bytesField(valueBytes(contract));
  const body = varintField(CONTRACT_NUMBER[contract.type]) + bytesField(any);
  const time = 1n + varintLength(BigInt(nowMs));
  const raw = bytesField(2n) + bytesField(8n) + time + bytesField(body) + time;
  return bandwidthOf(raw, 1);
}

/** The chain parameters the sponsor's costs follow (sun, bytes). */
export interface SponsorPrices {
  energyPriceSun: bigint;
  bandwidthPriceSun: bigint;
  /** getCreateAccountFee: burned for a new account's transaction when staked bandwidth does not cover it. */
  createAccountFeeSun: bigint;
  /** getCreateNewAccountFeeInSystemContract: what making an account costs its maker. */
  newAccountFeeSun: bigint;
  /** getCreateNewAccountBandwidthRate: staked bandwidth per byte of an account-creating transaction. */
  newAccountBandwidthRate: bigint;
  /** getFreeNetLimit: the daily free bandwidth of every account. */
  freeBandwidth: bigint;
}

/** What the sponsor pays for its own transactions, now (its bandwidth as it is) and at worst (all burned). */
export interface SponsorBill {
  expectedSun: bigint;
  maxSun: bigint;
}

/**
 * The cost of the sponsor's transactions in order, as java-tron's BandwidthProcessor charges them: staked
 * bandwidth if it covers the whole transaction, else free bandwidth if it does, else every byte burned;
 * an account-creating transaction may use staked bandwidth only (at `newAccountBandwidthRate` per byte),
 * else burns `createAccountFeeSun`, and its actuator takes `newAccountFeeSun` besides.
 */
export function sponsorBill(
  transactions: readonly { bandwidth: bigint; createsAccount: boolean }[],
  available: { staked: bigint; free: bigint },
  prices: SponsorPrices,
): SponsorBill {
  let { staked, free } = available;
  let expectedSun = 0n;
  let maxSun = 0n;
  for (const { bandwidth, createsAccount } of transactions) {
    if (createsAccount) {
      const cost = bandwidth * prices.newAccountBandwidthRate;
      if (staked >= cost) staked -= cost;
      else expectedSun += prices.createAccountFeeSun;
      expectedSun += prices.newAccountFeeSun;
      maxSun += prices.createAccountFeeSun + prices.newAccountFeeSun;
      continue;
    }
    if (staked >= bandwidth) staked -= bandwidth;
    else if (free >= bandwidth) free -= bandwidth;
    else expectedSun += bandwidth * prices.bandwidthPriceSun;
    maxSun += bandwidth * prices.bandwidthPriceSun;
  }
  return { expectedSun, maxSun };
}
