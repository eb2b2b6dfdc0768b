// Bandwidth and energy accounting after java-tron's ResourceProcessor / BandwidthProcessor /
// EnergyProcessor: usage decays linearly over a 24 h window of 28 800 slots.
import { hexAddressToBase58 } from './address.ts';
import type { ChainParams } from './params.ts';
import { type Account, type StakeResource, totalWeight, type WorldState } from './state.ts';

export const WINDOW_SLOTS = 28_800n;
const PRECISION = 1_000_000n;
const TRX = 1_000_000n;

/** Per-byte overhead java-tron adds for the result a transaction may carry (MAX_RESULT_SIZE_IN_TX). */
export const MAX_RESULT_SIZE_IN_TX = 64n;

/** Math.min for bigint (Math.min itself only takes numbers). */
export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const divCeil = (a: bigint, b: bigint) => a / b + (a % b > 0n ? 1n : 0n);
/** Java Math.round of a * num / den for non-negative values. */
const roundDiv = (a: bigint, num: bigint, den: bigint) => (2n * a * num + den) / (2n * den);

/** ResourceProcessor.increase: decays lastUsage from lastTime to now, then adds usage. */
export function increase(lastUsage: bigint, usage: bigint, lastTime: bigint, now: bigint): bigint {
  let averageLast = divCeil(lastUsage * PRECISION, WINDOW_SLOTS);
  const average = divCeil(usage * PRECISION, WINDOW_SLOTS);
  if (lastTime !== now) {
    if (lastTime + WINDOW_SLOTS > now) {
      const delta = now - lastTime;
      averageLast = roundDiv(averageLast, WINDOW_SLOTS - delta, WINDOW_SLOTS);
    } else {
      averageLast = 0n;
    }
  }
  return ((averageLast + average) * WINDOW_SLOTS) / PRECISION;
}

export class AccountResourceInsufficientError extends Error {}
export class ResourceValidateError extends Error {}
export class TooBigTransactionError extends Error {}

function globalLimit(frozen: bigint, totalLimit: bigint, weight: bigint): bigint {
  if (weight === 0n) return 0n;
  return (frozen * totalLimit) / (TRX * weight);
}

export function frozenFor(a: Account, r: StakeResource): bigint {
  return a.frozenV2[r] + a.acquired[r];
}

export function netLimitOf(world: WorldState, p: ChainParams, a: Account): bigint {
  return globalLimit(frozenFor(a, 'BANDWIDTH'), p.totalNetLimit, totalWeight(world, 'BANDWIDTH'));
}

export function energyLimitOf(world: WorldState, p: ChainParams, a: Account): bigint {
  return globalLimit(frozenFor(a, 'ENERGY'), p.totalEnergyCurrentLimit, totalWeight(world, 'ENERGY'));
}

/** Decays stored usages to `now` without moving the consume times (updateUsage for queries). */
export function refreshUsage(a: Account, now: bigint): void {
  a.netUsage = increase(a.netUsage, 0n, a.latestConsumeTime, now);
  a.freeNetUsage = increase(a.freeNetUsage, 0n, a.latestConsumeFreeTime, now);
  a.energyUsage = increase(a.energyUsage, 0n, a.latestConsumeTimeForEnergy, now);
}

export function leftEnergyOf(world: WorldState, p: ChainParams, a: Account, now: bigint): bigint {
  const used = increase(a.energyUsage, 0n, a.latestConsumeTimeForEnergy, now);
  const left = energyLimitOf(world, p, a) - used;
  return left > 0n ? left : 0n;
}

export function useEnergy(a: Account, energy: bigint, now: bigint, headTime: bigint): void {
  if (energy <= 0n) return;
  a.energyUsage = increase(a.energyUsage, energy, a.latestConsumeTimeForEnergy, now);
  a.latestConsumeTimeForEnergy = now;
  a.latestOperationTime = headTime;
  a.energyWindowUsed = true;
}

export interface NetBill {
  netUsage: bigint;
  netFee: bigint;
}

export interface BandwidthContext {
  world: WorldState;
  params: ChainParams;
  now: bigint;
  headTime: bigint;
  txId: string;
}

function useAccountNet(ctx: BandwidthContext, a: Account, bytes: bigint): boolean {
  const limit = netLimitOf(ctx.world, ctx.params, a);
  const used = increase(a.netUsage, 0n, a.latestConsumeTime, ctx.now);
  if (bytes > limit - used) return false;
  a.netUsage = increase(a.netUsage, bytes, a.latestConsumeTime, ctx.now);
  a.latestConsumeTime = ctx.now;
  a.latestOperationTime = ctx.headTime;
  a.netWindowUsed = true;
  return true;
}

function useFreeNet(ctx: BandwidthContext, a: Account, bytes: bigint): boolean {
  const used = increase(a.freeNetUsage, 0n, a.latestConsumeFreeTime, ctx.now);
  if (bytes > ctx.params.freeNetLimit - used) return false;
  a.freeNetUsage = increase(a.freeNetUsage, bytes, a.latestConsumeFreeTime, ctx.now);
  a.latestConsumeFreeTime = ctx.now;
  a.latestOperationTime = ctx.headTime;
  a.netWindowUsed = true;
  return true;
}

function burn(ctx: BandwidthContext, a: Account, fee: bigint): boolean {
  if (a.balance < fee) return false;
  a.balance -= fee;
  a.latestOperationTime = ctx.headTime;
  return true;
}

/**
 * BandwidthProcessor.consume for one contract. `bytes` is the signed transaction's size without
 * `ret` plus MAX_RESULT_SIZE_IN_TX; `createsAccount` when a transfer lands on a new address.
 */
export function consumeBandwidth(
  ctx: BandwidthContext,
  owner: string,
  bytes: bigint,
  createsAccount: { bytesWithoutSignatures: bigint } | null,
): NetBill {
  const a = ctx.world.accounts.get(owner);
  if (!a) throw new ResourceValidateError(`account [${hexAddressToBase58(owner)}] does not exist`);
  if (createsAccount) {
    const max = ctx.params.maxCreateAccountTxSize;
    if (createsAccount.bytesWithoutSignatures > max) {
      throw new TooBigTransactionError(
        `Too big new account transaction, TxId ${ctx.txId}, the size is ${createsAccount.bytesWithoutSignatures} bytes, maxTxSize ${max}`,
      );
    }
    const netCost = bytes * ctx.params.createNewAccountBandwidthRate;
    if (useAccountNet(ctx, a, netCost)) return { netUsage: netCost, netFee: 0n };
    if (burn(ctx, a, ctx.params.createAccountFee))
      return { netUsage: 0n, netFee: ctx.params.createAccountFee };
    throw new AccountResourceInsufficientError(
      `account [${hexAddressToBase58(owner)}] has insufficient bandwidth[${bytes}] and balance[${ctx.params.createAccountFee}] to create new account`,
    );
  }
  if (useAccountNet(ctx, a, bytes)) return { netUsage: bytes, netFee: 0n };
  if (useFreeNet(ctx, a, bytes)) return { netUsage: bytes, netFee: 0n };
  const fee = ctx.params.transactionFee * bytes;
  if (burn(ctx, a, fee)) return { netUsage: 0n, netFee: fee };
  throw new AccountResourceInsufficientError(
    `account [${hexAddressToBase58(owner)}] has insufficient bandwidth[${bytes}] and balance[${fee}] to create new account`,
  );
}
