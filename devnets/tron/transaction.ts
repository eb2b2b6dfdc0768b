// Tron Transaction model and its protobuf encoding (core/Tron.proto: Transaction, raw, Contract, Result).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { type ContractValue, RESOURCES, specByNumber, specByType, typeUrlOf } from './contract-types.ts';
import { ProtoDecodeError, ProtoWriter, readFields } from './protobuf.ts';

export interface TxContract {
  /** ContractType enum name, e.g. TransferContract. */
  type: string;
  typeNum: number;
  typeUrl: string;
  value: ContractValue;
  /** Undecoded Any.value for contract types this devnet does not model. */
  rawValue?: Uint8Array;
  permissionId: number;
  provider?: Uint8Array;
  contractName?: Uint8Array;
}

export interface TxRaw {
  refBlockBytes: Uint8Array;
  refBlockNum: bigint;
  refBlockHash: Uint8Array;
  expiration: bigint;
  data: Uint8Array;
  contracts: TxContract[];
  scripts: Uint8Array;
  timestamp: bigint;
  feeLimit: bigint;
}

/** Transaction.Result: ret code (0 SUCESS, 1 FAILED) and contractRet enum. */
export interface TxResult {
  fee: bigint;
  ret: number;
  contractRet: number;
}

export interface Transaction {
  raw: TxRaw;
  signatures: Uint8Array[];
  ret: TxResult[];
}

export const CONTRACT_RESULTS = [
  'DEFAULT',
  'SUCCESS',
  'REVERT',
  'BAD_JUMP_DESTINATION',
  'OUT_OF_MEMORY',
  'PRECOMPILED_CONTRACT',
  'STACK_TOO_SMALL',
  'STACK_TOO_LARGE',
  'ILLEGAL_OPERATION',
  'STACK_OVERFLOW',
  'OUT_OF_ENERGY',
  'OUT_OF_TIME',
  'JVM_STACK_OVER_FLOW',
  'UNKNOWN',
  'TRANSFER_FAILED',
  'INVALID_CODE',
] as const;
export type ContractResult = (typeof CONTRACT_RESULTS)[number];

export function contractResultCode(name: ContractResult): number {
  return CONTRACT_RESULTS.indexOf(name);
}

export function emptyRaw(): TxRaw {
  return {
    refBlockBytes: new Uint8Array(),
    refBlockNum: 0n,
    refBlockHash: new Uint8Array(),
    expiration: 0n,
    data: new Uint8Array(),
    contracts: [],
    scripts: new Uint8Array(),
    timestamp: 0n,
    feeLimit: 0n,
  };
}

export function newContract(type: string, value: ContractValue, permissionId = 0): TxContract {
  const spec = specByType(type);
  if (!spec) throw new Error(`unsupported contract type ${type}`);
  return { type, typeNum: spec.num, typeUrl: typeUrlOf(type), value, permissionId };
}

export function encodeContractValue(contract: TxContract): Uint8Array {
  if (contract.rawValue) return contract.rawValue;
  const spec = specByNumber(contract.typeNum);
  if (!spec) throw new Error(`unsupported contract type ${contract.type}`);
  const w = new ProtoWriter();
  for (const field of spec.fields) {
    const v = contract.value[field.name];
    if (v === undefined) continue;
    switch (field.kind) {
      case 'address':
        w.bytes(field.num, hexToBytes(v as string));
        break;
      case 'bytes':
      case 'text':
        w.bytes(field.num, v as Uint8Array);
        break;
      case 'int':
        w.int(field.num, v as bigint);
        break;
      case 'bool':
        w.bool(field.num, v as boolean);
        break;
      case 'resource':
        w.int(field.num, RESOURCES.indexOf(v as (typeof RESOURCES)[number]));
        break;
    }
  }
  return w.finish();
}

function encodeContract(contract: TxContract): Uint8Array {
  const any = new ProtoWriter().string(1, contract.typeUrl).bytes(2, encodeContractValue(contract)).finish();
  return new ProtoWriter()
    .int(1, contract.typeNum)
    .bytes(2, any, true)
    .bytes(3, contract.provider)
    .bytes(4, contract.contractName)
    .int(5, contract.permissionId)
    .finish();
}

export function encodeRaw(raw: TxRaw): Uint8Array {
  const w = new ProtoWriter()
    .bytes(1, raw.refBlockBytes)
    .int(3, raw.refBlockNum)
    .bytes(4, raw.refBlockHash)
    .int(8, raw.expiration)
    .bytes(10, raw.data);
  for (const c of raw.contracts) w.bytes(11, encodeContract(c), true);
  return w.bytes(12, raw.scripts).int(14, raw.timestamp).int(18, raw.feeLimit).finish();
}

export function encodeResult(r: TxResult): Uint8Array {
  return new ProtoWriter().int(1, r.fee).int(2, r.ret).int(3, r.contractRet).finish();
}

export function encodeTransaction(tx: Transaction, withRet = true): Uint8Array {
  const w = new ProtoWriter().bytes(1, encodeRaw(tx.raw), true);
  for (const s of tx.signatures) w.bytes(2, s, true);
  if (withRet) for (const r of tx.ret) w.bytes(5, encodeResult(r), true);
  return w.finish();
}

/** txID = sha256 of the raw_data protobuf bytes (no signature, no keccak). */
export function txIdOf(raw: TxRaw): string {
  return bytesToHex(sha256(encodeRaw(raw)));
}

function decodeContractValue(typeNum: number, bytes: Uint8Array): ContractValue | null {
  const spec = specByNumber(typeNum);
  if (!spec) return null;
  const value: ContractValue = {};
  for (const fld of readFields(bytes)) {
    const fs = spec.fields.find((s) => s.num === fld.field);
    if (!fs) continue;
    switch (fs.kind) {
      case 'address':
        value[fs.name] = bytesToHex(fld.bytes ?? new Uint8Array());
        break;
      case 'bytes':
      case 'text':
        value[fs.name] = Uint8Array.from(fld.bytes ?? []);
        break;
      case 'int':
        value[fs.name] = fld.int ?? 0n;
        break;
      case 'bool':
        value[fs.name] = (fld.int ?? 0n) !== 0n;
        break;
      case 'resource': {
        const r = RESOURCES[Number(fld.int ?? 0n)];
        if (!r) throw new ProtoDecodeError('unknown resource code');
        value[fs.name] = r;
        break;
      }
    }
  }
  return value;
}

function contractTypeName(num: number): string {
  return specByNumber(num)?.type ?? `ContractType${num}`;
}

function decodeContract(bytes: Uint8Array): TxContract {
  let typeNum = 0;
  let typeUrl = '';
  let anyValue = new Uint8Array();
  const c: Partial<TxContract> = { permissionId: 0 };
  for (const fld of readFields(bytes)) {
    if (fld.field === 1) typeNum = Number(fld.int ?? 0n);
    else if (fld.field === 2 && fld.bytes) {
      for (const a of readFields(fld.bytes)) {
        if (a.field === 1 && a.bytes) typeUrl = new TextDecoder().decode(a.bytes);
        if (a.field === 2 && a.bytes) anyValue = Uint8Array.from(a.bytes);
      }
    } else if (fld.field === 3) c.provider = fld.bytes;
    else if (fld.field === 4) c.contractName = fld.bytes;
    else if (fld.field === 5) c.permissionId = Number(fld.int ?? 0n);
  }
  const value = decodeContractValue(typeNum, anyValue);
  const contract: TxContract = {
    type: contractTypeName(typeNum),
    typeNum,
    typeUrl,
    value: value ?? {},
    permissionId: c.permissionId ?? 0,
  };
  if (!value) contract.rawValue = anyValue;
  if (c.provider) contract.provider = c.provider;
  if (c.contractName) contract.contractName = c.contractName;
  return contract;
}

export function decodeRaw(bytes: Uint8Array): TxRaw {
  const raw = emptyRaw();
  for (const fld of readFields(bytes)) {
    const b = fld.bytes ? Uint8Array.from(fld.bytes) : new Uint8Array();
    switch (fld.field) {
      case 1:
        raw.refBlockBytes = b;
        break;
      case 3:
        raw.refBlockNum = fld.int ?? 0n;
        break;
      case 4:
        raw.refBlockHash = b;
        break;
      case 8:
        raw.expiration = fld.int ?? 0n;
        break;
      case 10:
        raw.data = b;
        break;
      case 11:
        raw.contracts.push(decodeContract(b));
        break;
      case 12:
        raw.scripts = b;
        break;
      case 14:
        raw.timestamp = fld.int ?? 0n;
        break;
      case 18:
        raw.feeLimit = fld.int ?? 0n;
        break;
    }
  }
  return raw;
}

export function decodeTransaction(bytes: Uint8Array): Transaction {
  const tx: Transaction = { raw: emptyRaw(), signatures: [], ret: [] };
  for (const fld of readFields(bytes)) {
    if (fld.field === 1 && fld.bytes) tx.raw = decodeRaw(fld.bytes);
    else if (fld.field === 2 && fld.bytes) tx.signatures.push(Uint8Array.from(fld.bytes));
    else if (fld.field === 5 && fld.bytes) {
      const r: TxResult = { fee: 0n, ret: 0, contractRet: 0 };
      for (const x of readFields(fld.bytes)) {
        if (x.field === 1) r.fee = x.int ?? 0n;
        if (x.field === 2) r.ret = Number(x.int ?? 0n);
        if (x.field === 3) r.contractRet = Number(x.int ?? 0n);
      }
      tx.ret.push(r);
    }
  }
  return tx;
}
