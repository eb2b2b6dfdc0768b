// Smart-contract metadata: solc ABI -> java-tron's SmartContract.ABI, and the getcontract /
// getcontractinfo views.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { hexAddressToBase58 } from './address.ts';
import type { Json } from './json.ts';
import type { SolcAbiItem, SolcAbiParam } from './solidity.ts';
import type { AbiEntry, AbiParam, ContractInfo } from './state.ts';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function canonicalType(p: SolcAbiParam): string {
  if (!p.type.startsWith('tuple')) return p.type;
  return `(${(p.components ?? []).map(canonicalType).join(',')})${p.type.slice(5)}`;
}

export function toTronAbi(abi: SolcAbiItem[]): AbiEntry[] {
  return abi.map((item) => {
    const e: AbiEntry = { type: capital(item.type) };
    if (item.anonymous) e.anonymous = true;
    const mut = item.stateMutability;
    if (mut === 'view' || mut === 'pure') e.constant = true;
    if (item.name) e.name = item.name;
    const param = (p: SolcAbiParam): AbiParam => {
      const out: AbiParam = { type: canonicalType(p) };
      if (p.indexed) out.indexed = true;
      if (p.name) out.name = p.name;
      return out;
    };
    if (item.inputs?.length) e.inputs = item.inputs.map(param);
    if (item.outputs?.length) e.outputs = item.outputs.map(param);
    if (mut === 'payable') e.payable = true;
    if (mut && item.type !== 'event') e.stateMutability = capital(mut);
    return e;
  });
}

export function functionSelector(signature: string): string {
  return bytesToHex(keccak_256(utf8ToBytes(signature))).slice(0, 8);
}

/** Wallet.isConstant: the ABI entry for the selector is View or Pure. */
export function isConstantSelector(abi: AbiEntry[], selector: string): boolean {
  for (const e of abi) {
    if (e.type !== 'Function' || !e.name) continue;
    const sig = `${e.name}(${(e.inputs ?? []).map((i) => i.type).join(',')})`;
    if (functionSelector(sig) === selector)
      return e.stateMutability === 'View' || e.stateMutability === 'Pure';
  }
  return false;
}

export function printSmartContract(c: ContractInfo, visible: boolean): Record<string, Json> {
  const addr = (h: string) => (visible ? hexAddressToBase58(h) : h);
  const out: Record<string, Json> = {
    origin_address: addr(c.origin),
    contract_address: addr(c.address),
    abi: { entrys: c.abi as unknown as Json },
    bytecode: bytesToHex(c.bytecode),
  };
  if (c.consumeUserResourcePercent) out['consume_user_resource_percent'] = c.consumeUserResourcePercent;
  out['name'] = c.name;
  if (c.originEnergyLimit) out['origin_energy_limit'] = c.originEnergyLimit;
  out['code_hash'] = bytesToHex(c.codeHash);
  return out;
}

export function printContractInfo(c: ContractInfo, visible: boolean): Record<string, Json> {
  return {
    smart_contract: printSmartContract(c, visible),
    runtimecode: bytesToHex(c.runtimeCode),
    contract_state: {},
  };
}
