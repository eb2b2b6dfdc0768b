// TransactionInfo (core/Tron.proto) as gettransactioninfobyid prints it.
import { bytesToHex } from '@noble/hashes/utils.js';
import { type HexAddress, hexAddressToBase58 } from './address.ts';
import type { Json } from './json.ts';
import { CONTRACT_RESULTS, type ContractResult } from './transaction.ts';
import { printText } from './transaction-json.ts';
import type { TvmLog } from './tvm.ts';

export interface Receipt {
  energyUsage: bigint;
  energyFee: bigint;
  originEnergyUsage: bigint;
  energyUsageTotal: bigint;
  netUsage: bigint;
  netFee: bigint;
  /** Only VM transactions carry a receipt result (DEFAULT is omitted). */
  result: ContractResult;
}

export interface TransactionInfo {
  id: string;
  fee: bigint;
  blockNumber: bigint;
  blockTimeStamp: bigint;
  contractResult: Uint8Array;
  contractAddress: HexAddress | '';
  receipt: Receipt;
  logs: TvmLog[];
  failed: boolean;
  resMessage: string;
  withdrawExpireAmount: bigint;
  cancelUnfreezeV2Amount: Record<string, bigint> | null;
}

export function emptyReceipt(): Receipt {
  return {
    energyUsage: 0n,
    energyFee: 0n,
    originEnergyUsage: 0n,
    energyUsageTotal: 0n,
    netUsage: 0n,
    netFee: 0n,
    result: 'DEFAULT',
  };
}

function printReceipt(r: Receipt): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (r.energyUsage) out['energy_usage'] = r.energyUsage;
  if (r.energyFee) out['energy_fee'] = r.energyFee;
  if (r.originEnergyUsage) out['origin_energy_usage'] = r.originEnergyUsage;
  if (r.energyUsageTotal) out['energy_usage_total'] = r.energyUsageTotal;
  if (r.netUsage) out['net_usage'] = r.netUsage;
  if (r.netFee) out['net_fee'] = r.netFee;
  if (r.result !== 'DEFAULT') out['result'] = r.result;
  return out;
}

function printLogAddress(address: Uint8Array, visible: boolean): string {
  // Util.convertLogAddressToTronAddress: logs carry the 20-byte EVM address unless visible.
  return visible ? hexAddressToBase58(`41${bytesToHex(address)}`) : bytesToHex(address);
}

export function printTransactionInfo(info: TransactionInfo, visible: boolean): Record<string, Json> {
  const out: Record<string, Json> = { id: info.id };
  if (info.fee) out['fee'] = info.fee;
  if (info.blockNumber) out['blockNumber'] = info.blockNumber;
  if (info.blockTimeStamp) out['blockTimeStamp'] = info.blockTimeStamp;
  out['contractResult'] = [bytesToHex(info.contractResult)];
  if (info.contractAddress) {
    out['contract_address'] = visible ? hexAddressToBase58(info.contractAddress) : info.contractAddress;
  }
  out['receipt'] = printReceipt(info.receipt);
  if (info.logs.length) {
    out['log'] = info.logs.map((l) => {
      const log: Record<string, Json> = { address: printLogAddress(l.address, visible) };
      if (l.topics.length) log['topics'] = l.topics.map((t) => bytesToHex(t));
      if (l.data.length) log['data'] = bytesToHex(l.data);
      return log;
    });
  }
  if (info.failed) {
    out['result'] = 'FAILED';
    out['resMessage'] = printText(new TextEncoder().encode(info.resMessage), visible);
  }
  if (info.withdrawExpireAmount) out['withdraw_expire_amount'] = info.withdrawExpireAmount;
  if (info.cancelUnfreezeV2Amount) {
    out['cancel_unfreezeV2_amount'] = Object.entries(info.cancelUnfreezeV2Amount).map(
      ([key, value]): Json => (value ? { key, value } : { key }),
    );
  }
  return out;
}

export function contractResultIndex(r: ContractResult): number {
  return CONTRACT_RESULTS.indexOf(r);
}
