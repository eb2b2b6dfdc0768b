// Account, resource, Stake 2.0 and TRC10 queries.
import {
  printAccount,
  printAccountNet,
  printAccountResource,
  printAssetIssue,
  type ViewContext,
} from '../account-json.ts';
import { decodeBase58Check, isValidAddressBytes } from '../address.ts';
import type { TronChain } from '../chain.ts';
import type { Json } from '../json.ts';
import { printChainParameters } from '../params.ts';
import { increase } from '../resources.ts';
import { delegationKey, type StakeResource, totalWeight } from '../state.ts';
import { printAddress } from '../transaction-json.ts';
import { addressParam, intParam, stringParam } from './params.ts';
import type { Handler, NodeRequest } from './server.ts';

const UNFREEZE_MAX_TIMES = 32n;
const TRX = 1_000_000n;

function validateAddress(input: string): { result: boolean; message: string } {
  let bytes: Uint8Array | null;
  let message: string;
  if (input.length === 42) {
    if (!/^[0-9a-fA-F]{42}$/.test(input)) return { result: false, message: 'invalid hex string' };
    bytes = Uint8Array.from(Buffer.from(input, 'hex'));
    message = 'Hex string format';
  } else if (input.length === 34) {
    bytes = decodeBase58Check(input);
    message = 'Base58check format';
  } else if (input.length === 28) {
    bytes = Uint8Array.from(Buffer.from(input, 'base64'));
    message = 'Base64 format';
  } else {
    return { result: false, message: 'Length error' };
  }
  if (!bytes || !isValidAddressBytes(bytes)) return { result: false, message: 'Invalid address' };
  return { result: true, message };
}

export function accountRoutes(chain: TronChain): Record<string, Handler> {
  const view = (req: NodeRequest): ViewContext => ({
    world: chain.worldAt(req.solidity),
    params: chain.params,
    headSlot: req.solidity ? chain.solidBlock.header.timestamp / 3000n : chain.headSlot,
    genesisTime: chain.genesisTime,
    visible: req.visible,
  });
  const account = (req: NodeRequest, key: string) =>
    chain.worldAt(req.solidity).accounts.get(addressParam(req, key));

  return {
    getaccount: (req) => {
      const a = account(req, 'address');
      return a ? printAccount(view(req), a) : {};
    },
    getaccountresource: (req) => {
      const a = account(req, 'address');
      return a ? printAccountResource(view(req), a) : {};
    },
    getaccountnet: (req) => {
      const a = account(req, 'address');
      return a ? printAccountNet(view(req), a) : {};
    },
    validateaddress: (req) => validateAddress(stringParam(req, 'address')),
    getchainparameters: () => printChainParameters(chain.params),
    // History strings "<since ms>:<price>"; this devnet never changes its prices.
    getenergyprices: () => ({ prices: `0:${chain.params.energyFee}` }),
    getbandwidthprices: () => ({ prices: `0:${chain.params.transactionFee}` }),
    getmemofee: () => ({ prices: `0:${chain.params.memoFee}` }),
    getassetissuebyid: (req) => {
      const asset = chain.worldAt(req.solidity).assets.get(stringParam(req, 'value'));
      return asset ? printAssetIssue(asset, req.visible) : {};
    },
    getassetissuelist: (req) => {
      const assets = [...chain.worldAt(req.solidity).assets.values()];
      return assets.length ? { assetIssue: assets.map((a) => printAssetIssue(a, req.visible)) } : {};
    },
    getdelegatedresourcev2: (req) => {
      const world = chain.worldAt(req.solidity);
      const from = addressParam(req, 'fromAddress');
      const to = addressParam(req, 'toAddress');
      const out: Json[] = [];
      for (const lock of [false, true]) {
        const d = world.delegations.get(delegationKey(from, to, lock));
        if (!d) continue;
        const e: Record<string, Json> = {
          from: printAddress(d.from, req.visible),
          to: printAddress(d.to, req.visible),
        };
        if (d.bandwidth) e['frozen_balance_for_bandwidth'] = d.bandwidth;
        if (d.energy) e['frozen_balance_for_energy'] = d.energy;
        if (d.expireBandwidth) e['expire_time_for_bandwidth'] = d.expireBandwidth;
        if (d.expireEnergy) e['expire_time_for_energy'] = d.expireEnergy;
        out.push(e);
      }
      return out.length ? { delegatedResource: out } : {};
    },
    getdelegatedresourceaccountindexv2: (req) => {
      const world = chain.worldAt(req.solidity);
      const me = addressParam(req, 'value');
      const fromAccounts = new Set<string>();
      const toAccounts = new Set<string>();
      for (const d of world.delegations.values()) {
        if (d.to === me) fromAccounts.add(d.from);
        if (d.from === me) toAccounts.add(d.to);
      }
      if (!fromAccounts.size && !toAccounts.size) return {};
      const out: Record<string, Json> = { account: printAddress(me, req.visible) };
      if (fromAccounts.size) out['fromAccounts'] = [...fromAccounts].map((a) => printAddress(a, req.visible));
      if (toAccounts.size) out['toAccounts'] = [...toAccounts].map((a) => printAddress(a, req.visible));
      return out;
    },
    getcanwithdrawunfreezeamount: (req) => {
      const a = account(req, 'owner_address');
      const at = intParam(req, 'timestamp');
      let amount = 0n;
      for (const u of a?.unfrozenV2 ?? []) if (u.expireTime <= at) amount += u.amount;
      return amount ? { amount } : {};
    },
    getavailableunfreezecount: (req) => {
      const a = account(req, 'owner_address');
      if (!a) return {};
      const now = (req.solidity ? chain.solidBlock : chain.head).header.timestamp;
      const count = UNFREEZE_MAX_TIMES - BigInt(a.unfrozenV2.filter((u) => u.expireTime > now).length);
      return count ? { count } : {};
    },
    getcandelegatedmaxsize: (req) => {
      const a = account(req, 'owner_address');
      if (!a) return {};
      const r: StakeResource = intParam(req, 'type') === 1n ? 'ENERGY' : 'BANDWIDTH';
      const world = chain.worldAt(req.solidity);
      const usage =
        r === 'BANDWIDTH'
          ? increase(a.netUsage, 0n, a.latestConsumeTime, chain.headSlot)
          : increase(a.energyUsage, 0n, a.latestConsumeTimeForEnergy, chain.headSlot);
      const limit = r === 'BANDWIDTH' ? chain.params.totalNetLimit : chain.params.totalEnergyCurrentLimit;
      const used = (usage * TRX * totalWeight(world, r)) / limit - a.acquired[r];
      const max = a.frozenV2[r] - (used > 0n ? used : 0n);
      return max > 0n ? { max_size: max } : {};
    },
  };
}
