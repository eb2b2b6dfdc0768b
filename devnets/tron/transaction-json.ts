// java-tron's JSON view of a Transaction (Util.printTransactionToJSON / packTransaction):
// proto3 defaults omitted, bytes as hex, addresses hex or base58 (visible=true), text fields UTF-8 when visible.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { hexAddressToBase58, parseAddress } from './address.ts';
import { type ContractValue, RESOURCES, type Resource, specByType, typeUrlOf } from './contract-types.ts';
import { isObject, type Json } from './json.ts';
import {
  CONTRACT_RESULTS,
  emptyRaw,
  encodeRaw,
  type Transaction,
  type TxContract,
  type TxRaw,
  txIdOf,
} from './transaction.ts';

/** Mirrors java-tron's JsonFormat.ParseException: bad field values in a request body. */
export class JsonFormatError extends Error {
  readonly javaClass = 'class org.tron.core.services.http.JsonFormat$ParseException';
}

export function printAddress(hex: string, visible: boolean): string {
  return visible ? hexAddressToBase58(hex) : hex;
}

function isUtf8Printable(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    for (const ch of text) if ((ch.codePointAt(0) as number) < 0x20) return null;
    return text;
  } catch {
    return null;
  }
}

export function printText(bytes: Uint8Array, visible: boolean): string {
  if (!visible) return bytesToHex(bytes);
  return isUtf8Printable(bytes) ?? bytesToHex(bytes);
}

export function printContractValue(
  type: string,
  value: ContractValue,
  visible: boolean,
): Record<string, Json> {
  const spec = specByType(type);
  const out: Record<string, Json> = {};
  if (!spec) return out;
  for (const field of spec.fields) {
    const v = value[field.name];
    if (v === undefined) continue;
    switch (field.kind) {
      case 'address':
        if ((v as string).length > 0) out[field.name] = printAddress(v as string, visible);
        break;
      case 'bytes':
        if ((v as Uint8Array).length > 0) out[field.name] = bytesToHex(v as Uint8Array);
        break;
      case 'text':
        if ((v as Uint8Array).length > 0) out[field.name] = printText(v as Uint8Array, visible);
        break;
      case 'int':
        if (v !== 0n) out[field.name] = v as bigint;
        break;
      case 'bool':
        if (v) out[field.name] = true;
        break;
      case 'resource':
        if (v !== 'BANDWIDTH') out[field.name] = v as string;
        break;
    }
  }
  return out;
}

export function printRaw(raw: TxRaw, visible: boolean): Record<string, Json> {
  const contracts = raw.contracts.map((c) => {
    const json: Record<string, Json> = {
      parameter: {
        value: c.rawValue ? bytesToHex(c.rawValue) : printContractValue(c.type, c.value, visible),
        type_url: c.typeUrl,
      },
      type: c.type,
    };
    if (c.permissionId > 0) json['Permission_id'] = c.permissionId;
    return json;
  });
  const out: Record<string, Json> = { contract: contracts };
  if (raw.refBlockBytes.length) out['ref_block_bytes'] = bytesToHex(raw.refBlockBytes);
  if (raw.refBlockNum) out['ref_block_num'] = raw.refBlockNum;
  if (raw.refBlockHash.length) out['ref_block_hash'] = bytesToHex(raw.refBlockHash);
  if (raw.expiration) out['expiration'] = raw.expiration;
  if (raw.data.length) out['data'] = bytesToHex(raw.data);
  if (raw.scripts.length) out['scripts'] = bytesToHex(raw.scripts);
  if (raw.timestamp) out['timestamp'] = raw.timestamp;
  if (raw.feeLimit) out['fee_limit'] = raw.feeLimit;
  return out;
}

/** printTransactionToJSON; `visibleKey` adds the "visible" flag as the builder endpoints do. */
export function printTransaction(
  tx: Transaction,
  visible: boolean,
  opts: { visibleKey?: boolean } = {},
): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (tx.ret.length) {
    out['ret'] = tx.ret.map((r) => {
      const j: Record<string, Json> = {};
      if (r.fee) j['fee'] = r.fee;
      if (r.ret) j['ret'] = 'FAILED';
      if (r.contractRet) j['contractRet'] = CONTRACT_RESULTS[r.contractRet] ?? r.contractRet;
      return j;
    });
  }
  if (tx.signatures.length) out['signature'] = tx.signatures.map((s) => bytesToHex(s));
  if (opts.visibleKey) out['visible'] = visible;
  out['txID'] = txIdOf(tx.raw);
  out['raw_data'] = printRaw(tx.raw, visible);
  out['raw_data_hex'] = bytesToHex(encodeRaw(tx.raw));
  return out;
}

// ---- parsing (packTransaction) ----

export function jsonInt(v: Json | undefined, name: string): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  if (typeof v === 'boolean') throw new JsonFormatError(`Expected integer for ${name}.`);
  throw new JsonFormatError(`Couldn't parse integer: ${String(v)}`);
}

export function jsonHexBytes(v: Json | undefined): Uint8Array {
  if (v === undefined || v === null || v === '') return new Uint8Array();
  if (typeof v !== 'string') throw new JsonFormatError('Expected string.');
  const hex = v.replace(/^0x/i, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new JsonFormatError('INVALID hex String');
  return hexToBytes(hex.toLowerCase());
}

/** An address field as the request's visible mode expects it (base58 if visible, hex otherwise). */
export function jsonAddress(v: Json | undefined, visible: boolean): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string') throw new JsonFormatError('Expected string.');
  if (visible) {
    const hex = parseAddress(v);
    if (!hex || !v.startsWith('T')) throw new JsonFormatError('INVALID base58 String');
    return hex;
  }
  const bytes = jsonHexBytes(v);
  return bytesToHex(bytes);
}

export function jsonResource(v: Json | undefined): Resource {
  if (v === undefined || v === null) return 'BANDWIDTH';
  if (typeof v === 'bigint' || typeof v === 'number') {
    const r = RESOURCES[Number(v)];
    if (!r) throw new JsonFormatError(`Enum type "protocol.ResourceCode" has no value with number ${v}.`);
    return r;
  }
  const name = String(v).toUpperCase();
  const r = RESOURCES.find((x) => x === name);
  if (!r) throw new JsonFormatError(`Enum type "protocol.ResourceCode" has no value named "${String(v)}".`);
  return r;
}

export function parseContractValue(type: string, json: Json | undefined, visible: boolean): ContractValue {
  const spec = specByType(type);
  if (!spec) throw new JsonFormatError(`unsupported contract type ${type}`);
  const obj = isObject(json) ? json : {};
  const value: ContractValue = {};
  for (const field of spec.fields) {
    const v = obj[field.name];
    if (v === undefined || v === null) continue;
    switch (field.kind) {
      case 'address':
        value[field.name] = jsonAddress(v, visible);
        break;
      case 'bytes':
        value[field.name] = jsonHexBytes(v);
        break;
      case 'text':
        value[field.name] = visible ? new TextEncoder().encode(String(v)) : jsonHexBytes(v);
        break;
      case 'int':
        value[field.name] = jsonInt(v, field.name);
        break;
      case 'bool':
        value[field.name] = v === true || v === 'true';
        break;
      case 'resource':
        value[field.name] = jsonResource(v);
        break;
    }
  }
  return value;
}

/** Util.packTransaction: contracts of unknown type are dropped, as java-tron does. */
export function parseTransactionJson(json: Json, visible: boolean): Transaction {
  if (!isObject(json)) throw new JsonFormatError('Expected "{".');
  const rawJson = json['raw_data'];
  const raw = emptyRaw();
  if (isObject(rawJson)) {
    raw.refBlockBytes = jsonHexBytes(rawJson['ref_block_bytes']);
    raw.refBlockNum = jsonInt(rawJson['ref_block_num'], 'ref_block_num');
    raw.refBlockHash = jsonHexBytes(rawJson['ref_block_hash']);
    raw.expiration = jsonInt(rawJson['expiration'], 'expiration');
    raw.data = jsonHexBytes(rawJson['data']);
    raw.scripts = jsonHexBytes(rawJson['scripts']);
    raw.timestamp = jsonInt(rawJson['timestamp'], 'timestamp');
    raw.feeLimit = jsonInt(rawJson['fee_limit'], 'fee_limit');
    const contracts = rawJson['contract'];
    if (Array.isArray(contracts)) {
      for (const c of contracts) {
        if (!isObject(c) || typeof c['type'] !== 'string') continue;
        const spec = specByType(c['type']);
        if (!spec) continue;
        const param = isObject(c['parameter']) ? c['parameter'] : {};
        const contract: TxContract = {
          type: spec.type,
          typeNum: spec.num,
          // Any.pack in java-tron always writes the canonical type_url, whatever the JSON said.
          typeUrl: typeUrlOf(spec.type),
          value: parseContractValue(spec.type, param['value'], visible),
          permissionId: Number(jsonInt(c['Permission_id'], 'Permission_id')),
        };
        raw.contracts.push(contract);
      }
    }
  }
  const sigs = json['signature'];
  const signatures = Array.isArray(sigs) ? sigs.map((s) => jsonHexBytes(s)) : [];
  return { raw, signatures, ret: [] };
}
