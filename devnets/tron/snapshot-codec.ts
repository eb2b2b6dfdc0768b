// JSON for the devnet's saved chain: bigints as decimal strings, bytes as hex, maps as objects keyed as
// in memory, transactions as their protobuf bytes (the form their id and signature are over).
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { type Block, type BlockHeaderRaw, blockIdOf } from './block.ts';
import type { Resource } from './contract-types.ts';
import type { Account, AssetIssue, ContractInfo, Delegation, StakeResource, WorldState } from './state.ts';
import {
  CONTRACT_RESULTS,
  type ContractResult,
  decodeTransaction,
  encodeTransaction,
} from './transaction.ts';
import type { Receipt, TransactionInfo } from './transaction-info.ts';

/** The JSON form of an in-memory value: what the codec below writes and reads. */
export type Encoded<T> = T extends bigint
  ? string
  : T extends Uint8Array
    ? string
    : T extends Map<string, infer V>
      ? Record<string, Encoded<V>>
      : T extends readonly (infer E)[]
        ? Encoded<E>[]
        : T extends object
          ? { [K in keyof T]: Encoded<T[K]> }
          : T;

export interface EncodedBlock {
  id: string;
  header: Encoded<BlockHeaderRaw>;
  witnessSignature: string;
  /** Each transaction's protobuf bytes, as hex. */
  transactions: string[];
}

const big = (text: string): bigint => BigInt(text);
const hex = (text: string): Uint8Array => hexToBytes(text);

function encodeMap<V, J>(map: Map<string, V>, encode: (value: V) => J): Record<string, J> {
  const out: Record<string, J> = {};
  for (const [key, value] of map) out[key] = encode(value);
  return out;
}

function decodeMap<J, V>(record: Record<string, J>, decode: (value: J) => V): Map<string, V> {
  return new Map(Object.entries(record).map(([key, value]) => [key, decode(value)]));
}

const encodeStake = (r: Record<StakeResource, bigint>): Encoded<Record<StakeResource, bigint>> => ({
  BANDWIDTH: r.BANDWIDTH.toString(),
  ENERGY: r.ENERGY.toString(),
});
const decodeStake = (r: Encoded<Record<StakeResource, bigint>>): Record<StakeResource, bigint> => ({
  BANDWIDTH: big(r.BANDWIDTH),
  ENERGY: big(r.ENERGY),
});

function encodeAccount(a: Account): Encoded<Account> {
  return {
    address: a.address,
    type: a.type,
    balance: a.balance.toString(),
    createTime: a.createTime.toString(),
    latestOperationTime: a.latestOperationTime.toString(),
    assets: encodeMap(a.assets, String),
    assetIssuedId: a.assetIssuedId,
    frozenV2: {
      BANDWIDTH: a.frozenV2.BANDWIDTH.toString(),
      ENERGY: a.frozenV2.ENERGY.toString(),
      TRON_POWER: a.frozenV2.TRON_POWER.toString(),
    },
    unfrozenV2: a.unfrozenV2.map((u) => ({
      type: u.type,
      amount: u.amount.toString(),
      expireTime: u.expireTime.toString(),
    })),
    delegatedOut: encodeStake(a.delegatedOut),
    acquired: encodeStake(a.acquired),
    netUsage: a.netUsage.toString(),
    latestConsumeTime: a.latestConsumeTime.toString(),
    freeNetUsage: a.freeNetUsage.toString(),
    latestConsumeFreeTime: a.latestConsumeFreeTime.toString(),
    energyUsage: a.energyUsage.toString(),
    latestConsumeTimeForEnergy: a.latestConsumeTimeForEnergy.toString(),
    netWindowUsed: a.netWindowUsed,
    energyWindowUsed: a.energyWindowUsed,
  };
}

function decodeAccount(a: Encoded<Account>): Account {
  return {
    address: a.address,
    type: a.type,
    balance: big(a.balance),
    createTime: big(a.createTime),
    latestOperationTime: big(a.latestOperationTime),
    assets: decodeMap(a.assets, big),
    assetIssuedId: a.assetIssuedId,
    frozenV2: {
      BANDWIDTH: big(a.frozenV2.BANDWIDTH),
      ENERGY: big(a.frozenV2.ENERGY),
      TRON_POWER: big(a.frozenV2.TRON_POWER),
    },
    unfrozenV2: a.unfrozenV2.map((u) => ({
      type: resource(u.type),
      amount: big(u.amount),
      expireTime: big(u.expireTime),
    })),
    delegatedOut: decodeStake(a.delegatedOut),
    acquired: decodeStake(a.acquired),
    netUsage: big(a.netUsage),
    latestConsumeTime: big(a.latestConsumeTime),
    freeNetUsage: big(a.freeNetUsage),
    latestConsumeFreeTime: big(a.latestConsumeFreeTime),
    energyUsage: big(a.energyUsage),
    latestConsumeTimeForEnergy: big(a.latestConsumeTimeForEnergy),
    netWindowUsed: a.netWindowUsed,
    energyWindowUsed: a.energyWindowUsed,
  };
}

function resource(name: string): Resource {
  if (name === 'BANDWIDTH' || name === 'ENERGY' || name === 'TRON_POWER') return name;
  throw new Error(`unknown resource ${name}`);
}

function encodeContract(c: ContractInfo): Encoded<ContractInfo> {
  return {
    address: c.address,
    origin: c.origin,
    name: c.name,
    abi: c.abi,
    bytecode: bytesToHex(c.bytecode),
    runtimeCode: bytesToHex(c.runtimeCode),
    codeHash: bytesToHex(c.codeHash),
    consumeUserResourcePercent: c.consumeUserResourcePercent.toString(),
    originEnergyLimit: c.originEnergyLimit.toString(),
    storage: encodeMap(c.storage, bytesToHex),
  };
}

function decodeContract(c: Encoded<ContractInfo>): ContractInfo {
  return {
    address: c.address,
    origin: c.origin,
    name: c.name,
    abi: c.abi,
    bytecode: hex(c.bytecode),
    runtimeCode: hex(c.runtimeCode),
    codeHash: hex(c.codeHash),
    consumeUserResourcePercent: big(c.consumeUserResourcePercent),
    originEnergyLimit: big(c.originEnergyLimit),
    storage: decodeMap(c.storage, hex),
  };
}

function encodeDelegation(d: Delegation): Encoded<Delegation> {
  return {
    from: d.from,
    to: d.to,
    lock: d.lock,
    bandwidth: d.bandwidth.toString(),
    energy: d.energy.toString(),
    expireBandwidth: d.expireBandwidth.toString(),
    expireEnergy: d.expireEnergy.toString(),
  };
}

function decodeDelegation(d: Encoded<Delegation>): Delegation {
  return {
    from: d.from,
    to: d.to,
    lock: d.lock,
    bandwidth: big(d.bandwidth),
    energy: big(d.energy),
    expireBandwidth: big(d.expireBandwidth),
    expireEnergy: big(d.expireEnergy),
  };
}

function encodeAsset(a: AssetIssue): Encoded<AssetIssue> {
  return {
    id: a.id,
    owner: a.owner,
    name: a.name,
    abbr: a.abbr,
    description: a.description,
    url: a.url,
    totalSupply: a.totalSupply.toString(),
    precision: a.precision,
    trxNum: a.trxNum.toString(),
    num: a.num.toString(),
    startTime: a.startTime.toString(),
    endTime: a.endTime.toString(),
  };
}

function decodeAsset(a: Encoded<AssetIssue>): AssetIssue {
  return {
    id: a.id,
    owner: a.owner,
    name: a.name,
    abbr: a.abbr,
    description: a.description,
    url: a.url,
    totalSupply: big(a.totalSupply),
    precision: a.precision,
    trxNum: big(a.trxNum),
    num: big(a.num),
    startTime: big(a.startTime),
    endTime: big(a.endTime),
  };
}

export function encodeWorld(w: WorldState): Encoded<WorldState> {
  return {
    accounts: encodeMap(w.accounts, encodeAccount),
    contracts: encodeMap(w.contracts, encodeContract),
    delegations: encodeMap(w.delegations, encodeDelegation),
    assets: encodeMap(w.assets, encodeAsset),
    nextAssetId: w.nextAssetId,
  };
}

export function decodeWorld(w: Encoded<WorldState>): WorldState {
  return {
    accounts: decodeMap(w.accounts, decodeAccount),
    contracts: decodeMap(w.contracts, decodeContract),
    delegations: decodeMap(w.delegations, decodeDelegation),
    assets: decodeMap(w.assets, decodeAsset),
    nextAssetId: w.nextAssetId,
  };
}

function encodeReceipt(r: Receipt): Encoded<Receipt> {
  return {
    energyUsage: r.energyUsage.toString(),
    energyFee: r.energyFee.toString(),
    originEnergyUsage: r.originEnergyUsage.toString(),
    energyUsageTotal: r.energyUsageTotal.toString(),
    netUsage: r.netUsage.toString(),
    netFee: r.netFee.toString(),
    result: r.result,
  };
}

function decodeReceipt(r: Encoded<Receipt>): Receipt {
  return {
    energyUsage: big(r.energyUsage),
    energyFee: big(r.energyFee),
    originEnergyUsage: big(r.originEnergyUsage),
    energyUsageTotal: big(r.energyUsageTotal),
    netUsage: big(r.netUsage),
    netFee: big(r.netFee),
    result: contractResult(r.result),
  };
}

function contractResult(name: string): ContractResult {
  const found = CONTRACT_RESULTS.find((r) => r === name);
  if (found === undefined) throw new Error(`unknown contract result ${name}`);
  return found;
}

export function encodeInfo(i: TransactionInfo): Encoded<TransactionInfo> {
  return {
    id: i.id,
    fee: i.fee.toString(),
    blockNumber: i.blockNumber.toString(),
    blockTimeStamp: i.blockTimeStamp.toString(),
    contractResult: bytesToHex(i.contractResult),
    contractAddress: i.contractAddress,
    receipt: encodeReceipt(i.receipt),
    logs: i.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map(bytesToHex),
      data: bytesToHex(l.data),
    })),
    failed: i.failed,
    resMessage: i.resMessage,
    withdrawExpireAmount: i.withdrawExpireAmount.toString(),
    cancelUnfreezeV2Amount:
      i.cancelUnfreezeV2Amount === null
        ? null
        : Object.fromEntries(Object.entries(i.cancelUnfreezeV2Amount).map(([k, v]) => [k, v.toString()])),
  };
}

export function decodeInfo(i: Encoded<TransactionInfo>): TransactionInfo {
  return {
    id: i.id,
    fee: big(i.fee),
    blockNumber: big(i.blockNumber),
    blockTimeStamp: big(i.blockTimeStamp),
    contractResult: hex(i.contractResult),
    contractAddress: i.contractAddress,
    receipt: decodeReceipt(i.receipt),
    logs: i.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
    failed: i.failed,
    resMessage: i.resMessage,
    withdrawExpireAmount: big(i.withdrawExpireAmount),
    cancelUnfreezeV2Amount:
      i.cancelUnfreezeV2Amount === null
        ? null
        : Object.fromEntries(Object.entries(i.cancelUnfreezeV2Amount).map(([k, v]) => [k, big(v)])),
  };
}

export function encodeBlock(b: Block): EncodedBlock {
  const h = b.header;
  return {
    id: b.id,
    header: {
      timestamp: h.timestamp.toString(),
      txTrieRoot: bytesToHex(h.txTrieRoot),
      parentHash: bytesToHex(h.parentHash),
      number: h.number.toString(),
      witnessAddress: h.witnessAddress,
      version: h.version,
    },
    witnessSignature: bytesToHex(b.witnessSignature),
    transactions: b.transactions.map((tx) => bytesToHex(encodeTransaction(tx))),
  };
}

/** Decodes a block and checks it is the one saved: its id is recomputed from the header. */
export function decodeBlock(b: EncodedBlock): Block {
  const header: BlockHeaderRaw = {
    timestamp: big(b.header.timestamp),
    txTrieRoot: hex(b.header.txTrieRoot),
    parentHash: hex(b.header.parentHash),
    number: big(b.header.number),
    witnessAddress: b.header.witnessAddress,
    version: b.header.version,
  };
  const id = blockIdOf(header);
  if (id !== b.id) throw new Error(`saved block ${b.header.number} does not hash to its id`);
  return {
    header,
    witnessSignature: hex(b.witnessSignature),
    transactions: b.transactions.map((t) => decodeTransaction(hex(t))),
    id,
  };
}
