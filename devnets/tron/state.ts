// World state held in memory: accounts (TRX, TRC10, Stake 2.0), contracts with storage,
// delegations and TRC10 asset issues. Plain data so a block snapshot is one structuredClone.
import type { HexAddress } from './address.ts';
import type { Resource } from './contract-types.ts';

export type StakeResource = Exclude<Resource, 'TRON_POWER'>;

export interface UnfrozenV2 {
  type: Resource;
  amount: bigint;
  expireTime: bigint;
}

export interface Account {
  address: HexAddress;
  type: 'Normal' | 'AssetIssue' | 'Contract';
  balance: bigint;
  createTime: bigint;
  latestOperationTime: bigint;
  /** TRC10 balances by token id (assetV2). */
  assets: Map<string, bigint>;
  assetIssuedId: string;
  frozenV2: Record<Resource, bigint>;
  unfrozenV2: UnfrozenV2[];
  delegatedOut: Record<StakeResource, bigint>;
  acquired: Record<StakeResource, bigint>;
  /** Usages are in bytes/energy, times in head slots (3 s), as java-tron stores them. */
  netUsage: bigint;
  latestConsumeTime: bigint;
  freeNetUsage: bigint;
  latestConsumeFreeTime: bigint;
  energyUsage: bigint;
  latestConsumeTimeForEnergy: bigint;
  /** Whether the resource windows were ever touched (java-tron prints window fields then). */
  netWindowUsed: boolean;
  energyWindowUsed: boolean;
}

export interface AbiParam {
  name?: string;
  type: string;
  indexed?: boolean;
}

/** SmartContract.ABI.Entry as java-tron prints it (type/stateMutability capitalised). */
export interface AbiEntry {
  anonymous?: boolean;
  constant?: boolean;
  name?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
  type: string;
  payable?: boolean;
  stateMutability?: string;
}

export interface ContractInfo {
  address: HexAddress;
  origin: HexAddress;
  name: string;
  abi: AbiEntry[];
  /** Creation bytecode, which getcontract reports as "bytecode". */
  bytecode: Uint8Array;
  runtimeCode: Uint8Array;
  codeHash: Uint8Array;
  consumeUserResourcePercent: bigint;
  originEnergyLimit: bigint;
  /** Slot (64-hex) -> value bytes with leading zeros stripped, as the EVM stores them. */
  storage: Map<string, Uint8Array>;
}

export interface Delegation {
  from: HexAddress;
  to: HexAddress;
  lock: boolean;
  bandwidth: bigint;
  energy: bigint;
  expireBandwidth: bigint;
  expireEnergy: bigint;
}

export interface AssetIssue {
  id: string;
  owner: HexAddress;
  name: string;
  abbr: string;
  description: string;
  url: string;
  totalSupply: bigint;
  precision: number;
  trxNum: bigint;
  num: bigint;
  startTime: bigint;
  endTime: bigint;
}

export interface WorldState {
  accounts: Map<HexAddress, Account>;
  contracts: Map<HexAddress, ContractInfo>;
  delegations: Map<string, Delegation>;
  assets: Map<string, AssetIssue>;
  nextAssetId: number;
}

export function emptyWorld(): WorldState {
  return {
    accounts: new Map(),
    contracts: new Map(),
    delegations: new Map(),
    assets: new Map(),
    nextAssetId: 1000001,
  };
}

export function cloneWorld(world: WorldState): WorldState {
  return structuredClone(world);
}

export function newAccount(
  address: HexAddress,
  createTime: bigint,
  type: Account['type'] = 'Normal',
): Account {
  return {
    address,
    type,
    balance: 0n,
    createTime,
    latestOperationTime: 0n,
    assets: new Map(),
    assetIssuedId: '',
    frozenV2: { BANDWIDTH: 0n, ENERGY: 0n, TRON_POWER: 0n },
    unfrozenV2: [],
    delegatedOut: { BANDWIDTH: 0n, ENERGY: 0n },
    acquired: { BANDWIDTH: 0n, ENERGY: 0n },
    netUsage: 0n,
    latestConsumeTime: 0n,
    freeNetUsage: 0n,
    latestConsumeFreeTime: 0n,
    energyUsage: 0n,
    latestConsumeTimeForEnergy: 0n,
    netWindowUsed: false,
    energyWindowUsed: false,
  };
}

export function delegationKey(from: HexAddress, to: HexAddress, lock: boolean): string {
  return `${from}:${to}:${lock ? 1 : 0}`;
}

const TRX = 1_000_000n;

/** TotalNetWeight / TotalEnergyWeight: staked TRX (own + delegated out), in whole TRX per account. */
export function totalWeight(world: WorldState, resource: StakeResource): bigint {
  let sum = 0n;
  for (const a of world.accounts.values()) sum += (a.frozenV2[resource] + a.delegatedOut[resource]) / TRX;
  return sum;
}

/** With the new resource model every Stake 2.0 freeze also carries voting power. */
export function tronPowerOf(a: Account): bigint {
  const all =
    a.frozenV2.BANDWIDTH +
    a.frozenV2.ENERGY +
    a.frozenV2.TRON_POWER +
    a.delegatedOut.BANDWIDTH +
    a.delegatedOut.ENERGY;
  return all / TRX;
}

/** DynamicPropertiesStore TOTAL_TRON_POWER_WEIGHT: only stake frozen as TRON_POWER counts. */
export function totalTronPowerWeight(world: WorldState): bigint {
  let sum = 0n;
  for (const a of world.accounts.values()) sum += a.frozenV2.TRON_POWER / TRX;
  return sum;
}
