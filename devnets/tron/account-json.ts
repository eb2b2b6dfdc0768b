// getaccount / getaccountresource / getaccountnet views (Wallet.getAccount & co): usages decayed
// to the head slot first, slot times shown as ms, proto3 defaults omitted.
import { hexAddressToBase58 } from './address.ts';
import { RESOURCES } from './contract-types.ts';
import type { Json } from './json.ts';
import type { ChainParams } from './params.ts';
import { energyLimitOf, netLimitOf, refreshUsage, WINDOW_SLOTS } from './resources.ts';
import {
  type Account,
  type AssetIssue,
  totalTronPowerWeight,
  totalWeight,
  tronPowerOf,
  type WorldState,
} from './state.ts';
import { printText } from './transaction-json.ts';

const BLOCK_INTERVAL_MS = 3000n;
/** Default active permission operations: every system contract type java-tron allows. */
const ACTIVE_OPERATIONS = '7fff1fc0033efb0f000000000000000000000000000000000000000000000000';
const WINDOW_SIZE_V2 = WINDOW_SLOTS * 1000n;

const nz = (out: Record<string, Json>, key: string, v: bigint) => {
  if (v !== 0n) out[key] = v;
};

export interface ViewContext {
  world: WorldState;
  params: ChainParams;
  headSlot: bigint;
  genesisTime: bigint;
  visible: boolean;
}

function slotToMs(ctx: ViewContext, slot: bigint): bigint {
  return ctx.genesisTime + BLOCK_INTERVAL_MS * slot;
}

export function printAccount(ctx: ViewContext, stored: Account): Record<string, Json> {
  const a = structuredClone(stored);
  refreshUsage(a, ctx.headSlot);
  const addr = ctx.visible ? hexAddressToBase58(a.address) : a.address;
  const out: Record<string, Json> = {};
  if (a.type !== 'Normal') out['type'] = a.type;
  out['address'] = addr;
  nz(out, 'balance', a.balance);
  nz(out, 'create_time', a.createTime);
  nz(out, 'latest_opration_time', a.latestOperationTime);
  if (a.assetIssuedId) {
    out['asset_issued_ID'] = printText(new TextEncoder().encode(a.assetIssuedId), ctx.visible);
  }
  nz(out, 'free_net_usage', a.freeNetUsage);
  nz(out, 'net_usage', a.netUsage);
  nz(out, 'latest_consume_time', slotToMs(ctx, a.latestConsumeTime));
  nz(out, 'latest_consume_free_time', slotToMs(ctx, a.latestConsumeFreeTime));
  if (a.netWindowUsed) {
    out['net_window_size'] = WINDOW_SIZE_V2;
    out['net_window_optimized'] = true;
  }
  const resource: Record<string, Json> = {};
  nz(resource, 'energy_usage', a.energyUsage);
  nz(resource, 'latest_consume_time_for_energy', slotToMs(ctx, a.latestConsumeTimeForEnergy));
  if (a.energyWindowUsed) {
    resource['energy_window_size'] = WINDOW_SIZE_V2;
    resource['energy_window_optimized'] = true;
  }
  nz(resource, 'delegated_frozenV2_balance_for_energy', a.delegatedOut.ENERGY);
  nz(resource, 'acquired_delegated_frozenV2_balance_for_energy', a.acquired.ENERGY);
  if (Object.keys(resource).length) out['account_resource'] = resource;
  const key = { address: addr, weight: 1n };
  out['owner_permission'] = { permission_name: 'owner', threshold: 1n, keys: [key] };
  out['active_permission'] = [
    {
      type: 'Active',
      id: 2n,
      permission_name: 'active',
      threshold: 1n,
      operations: ACTIVE_OPERATIONS,
      keys: [key],
    },
  ];
  out['frozenV2'] = RESOURCES.map((r) => {
    const e: Record<string, Json> = {};
    if (r !== 'BANDWIDTH') e['type'] = r;
    nz(e, 'amount', a.frozenV2[r]);
    return e;
  });
  if (a.unfrozenV2.length) {
    out['unfrozenV2'] = a.unfrozenV2.map((u) => {
      const e: Record<string, Json> = {};
      if (u.type !== 'BANDWIDTH') e['type'] = u.type;
      nz(e, 'unfreeze_amount', u.amount);
      nz(e, 'unfreeze_expire_time', u.expireTime);
      return e;
    });
  }
  nz(out, 'delegated_frozenV2_balance_for_bandwidth', a.delegatedOut.BANDWIDTH);
  nz(out, 'acquired_delegated_frozenV2_balance_for_bandwidth', a.acquired.BANDWIDTH);
  if (a.assets.size) {
    out['assetV2'] = [...a.assets].map(([k, v]): Json => (v ? { key: k, value: v } : { key: k }));
    out['free_asset_net_usageV2'] = [...a.assets.keys()].map((k): Json => ({ key: k }));
    out['asset_optimized'] = true;
  }
  return out;
}

export function printAccountResource(ctx: ViewContext, stored: Account): Record<string, Json> {
  const a = structuredClone(stored);
  refreshUsage(a, ctx.headSlot);
  const out: Record<string, Json> = {};
  nz(out, 'freeNetUsed', a.freeNetUsage);
  nz(out, 'freeNetLimit', ctx.params.freeNetLimit);
  nz(out, 'NetUsed', a.netUsage);
  nz(out, 'NetLimit', netLimitOf(ctx.world, ctx.params, a));
  if (a.assets.size) {
    out['assetNetUsed'] = [...a.assets.keys()].map((k): Json => ({ key: k }));
    out['assetNetLimit'] = [...a.assets.keys()].map((k): Json => ({ key: k }));
  }
  nz(out, 'TotalNetLimit', ctx.params.totalNetLimit);
  nz(out, 'TotalNetWeight', totalWeight(ctx.world, 'BANDWIDTH'));
  nz(out, 'TotalTronPowerWeight', totalTronPowerWeight(ctx.world));
  nz(out, 'tronPowerLimit', tronPowerOf(a));
  nz(out, 'EnergyUsed', a.energyUsage);
  nz(out, 'EnergyLimit', energyLimitOf(ctx.world, ctx.params, a));
  nz(out, 'TotalEnergyLimit', ctx.params.totalEnergyCurrentLimit);
  nz(out, 'TotalEnergyWeight', totalWeight(ctx.world, 'ENERGY'));
  return out;
}

export function printAccountNet(ctx: ViewContext, stored: Account): Record<string, Json> {
  const a = structuredClone(stored);
  refreshUsage(a, ctx.headSlot);
  const out: Record<string, Json> = {};
  nz(out, 'freeNetUsed', a.freeNetUsage);
  nz(out, 'freeNetLimit', ctx.params.freeNetLimit);
  nz(out, 'NetUsed', a.netUsage);
  nz(out, 'NetLimit', netLimitOf(ctx.world, ctx.params, a));
  if (a.assets.size) {
    out['assetNetUsed'] = [...a.assets.keys()].map((k): Json => ({ key: k }));
    out['assetNetLimit'] = [...a.assets.keys()].map((k): Json => ({ key: k }));
  }
  nz(out, 'TotalNetLimit', ctx.params.totalNetLimit);
  nz(out, 'TotalNetWeight', totalWeight(ctx.world, 'BANDWIDTH'));
  return out;
}

/** AssetIssueContract as getassetissuebyid prints it (name/abbr/description/url are bytes). */
export function printAssetIssue(asset: AssetIssue, visible: boolean): Record<string, Json> {
  const text = (s: string) => printText(new TextEncoder().encode(s), visible);
  const out: Record<string, Json> = {
    owner_address: visible ? hexAddressToBase58(asset.owner) : asset.owner,
    name: text(asset.name),
    abbr: text(asset.abbr),
    total_supply: asset.totalSupply,
    trx_num: asset.trxNum,
  };
  if (asset.precision) out['precision'] = BigInt(asset.precision);
  out['num'] = asset.num;
  out['start_time'] = asset.startTime;
  out['end_time'] = asset.endTime;
  if (asset.description) out['description'] = text(asset.description);
  if (asset.url) out['url'] = text(asset.url);
  out['id'] = asset.id;
  return out;
}
