/**
 * What a sponsored Tron transfer needs, read from the node: the energy and bandwidth the transfer uses
 * beyond what its sender has, how the sponsor provides each (a delegation of its stake, or the exact TRX
 * the transfer will burn when it has no stake left to lend), whether the sender must be activated
 * first, and what all this costs the sponsor now and at worst.
 */
import { invalidField } from '../../errors.ts';
import type { SponsoredTransfer } from '../fee-sponsor.ts';
import type { TronAdapter } from './adapter.ts';
import { energyAvailable, freeBandwidthAvailable, int, stakedBandwidthAvailable } from './resources.ts';
import {
  type SponsorContract,
  type SponsorPrices,
  sponsorBill,
  stakeForResource,
  systemTransactionBandwidth,
} from './sponsor-costs.ts';
import type { TronResource, TronTransaction } from './types.ts';

const RESOURCES = ['ENERGY', 'BANDWIDTH'] as const;

export interface TronSponsorPlan {
  /** The sender does not exist on chain: the sponsor creates it first. */
  activate: boolean;
  /** Energy the transfer uses beyond what the sender has. */
  energy: bigint;
  /** Bandwidth (bytes) the transfer needs beyond what the sender has (0 when its free bandwidth covers it). */
  bandwidth: bigint;
  /** Sun of the sponsor's stake lent to the sender for the transfer, per resource (0: none). */
  delegate: Record<TronResource, bigint>;
  /** TRX (sun) the sponsor sends the sender for the transfer to burn, where it has no stake to lend. */
  topUpSun: bigint;
  /** What the sponsor loses as things stand (sun). */
  expectedSun: bigint;
  /** The most it can lose: every one of its transactions burning its bandwidth (sun). */
  maxSun: bigint;
}

/** The transfer, unsigned, as the node builds it for `transfer` (fee limit for contract calls). */
export function buildTransfer(
  adapter: TronAdapter,
  transfer: SponsoredTransfer,
  feeLimitSun: bigint,
): Promise<TronTransaction> {
  const { from, to } = transfer;
  const units = BigInt(transfer.units);
  switch (transfer.type) {
    case 'TRX':
      return adapter.buildTrxTransfer(from, to, units);
    case 'TRC10':
      return adapter.buildTrc10Transfer(from, to, transfer.tokenId ?? '', units);
    case 'TRC20':
      return adapter.buildTrc20Transfer(from, to, transfer.contract ?? '', units, feeLimitSun);
    default:
      return adapter.buildTrc721Transfer(
        from,
        to,
        transfer.contract ?? '',
        BigInt(transfer.tokenId ?? '0'),
        feeLimitSun,
      );
  }
}

/** The chain parameters the sponsor's costs follow. */
export async function sponsorPrices(adapter: TronAdapter): Promise<SponsorPrices> {
  const { chainParameter } = await adapter.getChainParameters();
  const param = (key: string) => int(chainParameter.find((p) => p?.key === key)?.value);
  return {
    energyPriceSun: param('getEnergyFee'),
    bandwidthPriceSun: param('getTransactionFee'),
    createAccountFeeSun: param('getCreateAccountFee'),
    newAccountFeeSun: param('getCreateNewAccountFeeInSystemContract'),
    newAccountBandwidthRate: param('getCreateNewAccountBandwidthRate'),
    freeBandwidth: param('getFreeNetLimit'),
  };
}

/** What the transfer itself needs of its sender, before the sponsor's part is decided. */
interface TransferNeeds {
  activate: boolean;
  energy: bigint;
  bandwidth: bigint;
  /** TRX burned for the bandwidth when nothing is lent (all bytes, or a new account's fee). */
  bandwidthBurnSun: bigint;
  /** TRX the transfer's actuator charges besides (a new recipient's account fee). */
  feeSun: bigint;
}

/**
 * The plan of a sponsored transfer. Throws the 422 of a transfer the pre-flight knows will fail: a
 * balance too small, a contract that rejects it, or energy beyond the fee limit.
 */
export async function planSponsorship(
  adapter: TronAdapter,
  transfer: SponsoredTransfer,
  sponsor: string,
  feeLimitSun: bigint,
  /** Stake (sun) other jobs of this process are lending and the node does not show lent yet. */
  lending: Readonly<Record<TronResource, bigint>> = { ENERGY: 0n, BANDWIDTH: 0n },
): Promise<TronSponsorPlan> {
  const prices = await sponsorPrices(adapter);
  const needs = await transferNeeds(adapter, transfer, feeLimitSun, prices);
  const [totals, sponsorResources, lendable] = await Promise.all([
    adapter.getResourceTotals(sponsor),
    adapter.getAccountResources(sponsor),
    Promise.all([
      adapter.getDelegatableSun(sponsor, 'ENERGY'),
      adapter.getDelegatableSun(sponsor, 'BANDWIDTH'),
    ]),
  ]);
  const stake = {
    ENERGY: stakeForResource(needs.energy, totals, 'ENERGY'),
    BANDWIDTH: stakeForResource(needs.bandwidth, totals, 'BANDWIDTH'),
  };
  const canLend = (resource: TronResource, lendable: bigint) => {
    const sun = stake[resource];
    return sun !== null && sun <= lendable;
  };
  const available = {
    staked: stakedBandwidthAvailable(sponsorResources),
    free: freeBandwidthAvailable(sponsorResources),
  };
  const planned = sponsorWay(
    needs,
    stake,
    {
      ENERGY: canLend('ENERGY', lendable[0] - lending.ENERGY),
      BANDWIDTH: canLend('BANDWIDTH', lendable[1] - lending.BANDWIDTH),
    },
    available,
    prices,
  );
  // The stake lendable now may be lent to another job by the time this one runs, which then burns TRX
  // instead: the most it can lose is the dearest of the ways it may pay.
  let maxSun = planned.maxSun;
  for (const ENERGY of [false, true]) {
    for (const BANDWIDTH of [false, true]) {
      if ((ENERGY && stake.ENERGY === null) || (BANDWIDTH && stake.BANDWIDTH === null)) continue;
      const way = sponsorWay(needs, stake, { ENERGY, BANDWIDTH }, available, prices);
      if (way.maxSun > maxSun) maxSun = way.maxSun;
    }
  }
  return {
    activate: needs.activate,
    energy: needs.energy,
    bandwidth: needs.bandwidth,
    delegate: planned.delegate,
    topUpSun: planned.topUpSun,
    expectedSun: planned.expectedSun,
    maxSun,
  };
}

/** One way to pay the needs: lending each resource or burning TRX for it, and what that costs the sponsor. */
function sponsorWay(
  needs: TransferNeeds,
  stake: Record<TronResource, bigint | null>,
  lend: Record<TronResource, boolean>,
  available: { staked: bigint; free: bigint },
  prices: SponsorPrices,
) {
  const delegate = { ENERGY: 0n, BANDWIDTH: 0n };
  let topUpSun = needs.feeSun;
  if (lend.ENERGY) delegate.ENERGY = stake.ENERGY ?? 0n;
  else topUpSun += needs.energy * prices.energyPriceSun;
  if (lend.BANDWIDTH) delegate.BANDWIDTH = stake.BANDWIDTH ?? 0n;
  else topUpSun += needs.bandwidthBurnSun;

  const ownTransactions: { bandwidth: bigint; createsAccount: boolean }[] = [];
  const add = (contract: SponsorContract, createsAccount = false) =>
    ownTransactions.push({ bandwidth: systemTransactionBandwidth(contract), createsAccount });
  if (needs.activate) add({ type: 'AccountCreateContract' }, true);
  for (const resource of RESOURCES) {
    if (delegate[resource] > 0n)
      add({ type: 'DelegateResourceContract', resource, balance: delegate[resource] });
  }
  if (topUpSun > 0n) add({ type: 'TransferContract', amount: topUpSun });
  for (const resource of RESOURCES) {
    if (delegate[resource] > 0n)
      add({ type: 'UnDelegateResourceContract', resource, balance: delegate[resource] });
  }
  const bill = sponsorBill(ownTransactions, available, prices);
  return { delegate, topUpSun, expectedSun: bill.expectedSun + topUpSun, maxSun: bill.maxSun + topUpSun };
}

async function transferNeeds(
  adapter: TronAdapter,
  transfer: SponsoredTransfer,
  feeLimitSun: bigint,
  prices: SponsorPrices,
): Promise<TransferNeeds> {
  const sender = await adapter.getAccountResources(transfer.from);
  const activate = !sender.exists;
  // A new account starts with the day's free bandwidth and nothing used.
  const free = activate ? prices.freeBandwidth : freeBandwidthAvailable(sender);
  const staked = stakedBandwidthAvailable(sender);
  const units = BigInt(transfer.units);
  const tooSmall = (has: bigint) =>
    invalidField(
      'amount',
      `The sender holds ${has} base units of it, less than the ${units} the transfer moves.`,
    );

  if (transfer.type === 'TRX' || transfer.type === 'TRC10') {
    const held =
      transfer.type === 'TRX'
        ? sender.balance
        : await adapter.getTrc10Balance(transfer.from, transfer.tokenId ?? '');
    if (held < units) throw tooSmall(held);
    const contract: SponsorContract =
      transfer.type === 'TRX'
        ? { type: 'TransferContract', amount: units }
        : { type: 'TransferAssetContract', tokenId: transfer.tokenId ?? '', amount: units };
    const bytes = systemTransactionBandwidth(contract);
    if ((await adapter.getAccount(transfer.to)) === null) {
      // A new recipient: only staked bandwidth pays for it (per byte at the rate), else a fixed fee burns.
      const cost = bytes * prices.newAccountBandwidthRate;
      return {
        activate,
        energy: 0n,
        bandwidth: staked >= cost ? 0n : cost - staked,
        bandwidthBurnSun: staked >= cost ? 0n : prices.createAccountFeeSun,
        feeSun: prices.newAccountFeeSun,
      };
    }
    return { activate, energy: 0n, ...bandwidthNeeds(bytes, free, staked, prices), feeSun: 0n };
  }

  if (transfer.type === 'TRC20') {
    const { balance } = await adapter.getTrc20Balance(transfer.from, transfer.contract ?? '');
    if (balance < units) throw tooSmall(balance);
  }
  const estimate = await adapter.estimateContractTransfer(
    transfer.from,
    await buildTransfer(adapter, transfer, feeLimitSun),
  );
  if (estimate.revert !== null) {
    throw invalidField(
      'amount',
      `The contract rejects this transfer${estimate.revert ? `: ${estimate.revert}` : ''}.`,
    );
  }
  if (estimate.energy * prices.energyPriceSun > feeLimitSun) {
    throw invalidField(
      'amount',
      `The transfer needs ${estimate.energy} energy, more than the fee limit lets it use.`,
    );
  }
  const energy = estimate.energy - energyAvailable(sender);
  return {
    activate,
    energy: energy > 0n ? energy : 0n,
    ...bandwidthNeeds(estimate.bandwidth, free, staked, prices),
    feeSun: 0n,
  };
}

/** Staked or free bandwidth covers a transaction only whole (java-tron's BandwidthProcessor). */
function bandwidthNeeds(bytes: bigint, free: bigint, staked: bigint, prices: SponsorPrices) {
  if (staked >= bytes || free >= bytes) return { bandwidth: 0n, bandwidthBurnSun: 0n };
  return { bandwidth: bytes - staked, bandwidthBurnSun: bytes * prices.bandwidthPriceSun };
}
