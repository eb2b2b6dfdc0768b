/**
 * Tron address codec: base58check `T...` (what users see) <-> 21-byte hex `41...` (what the node
 * speaks with visible=false) <-> the 20-byte word an ABI argument holds.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { TronInputError } from './errors.ts';

/** Base58check as Tron writes addresses: the bytes, then the first 4 bytes of their double sha256. */
const base58check = createBase58check(sha256);

const BASE58_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX_ADDRESS = /^41[0-9a-fA-F]{40}$/;

/** True for a base58check address with a valid checksum or a `41` + 40 hex address. */
export function isTronAddress(address: string): boolean {
  if (typeof address !== 'string') return false;
  if (HEX_ADDRESS.test(address)) return true;
  return BASE58_ADDRESS.test(address) && decodedAddress(address) !== null;
}

/** The 21 bytes (`41` + account) of a base58check address; null when its checksum or prefix is wrong. */
function decodedAddress(address: string): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(address);
  } catch {
    return null;
  }
  return bytes.length === 21 && bytes[0] === 0x41 ? bytes : null;
}

/** The base58check `T...` form of 21 address bytes. */
export function base58OfAddressBytes(bytes: Uint8Array): string {
  return base58check.encode(bytes);
}

/** 41-prefixed lower-case hex; throws TronInputError for anything that is not a Tron address. */
export function toHexAddress(address: string): string {
  if (typeof address === 'string' && HEX_ADDRESS.test(address)) return address.toLowerCase();
  if (typeof address === 'string' && BASE58_ADDRESS.test(address)) {
    const bytes = decodedAddress(address);
    if (bytes !== null) return Buffer.from(bytes).toString('hex');
  }
  throw new TronInputError(`invalid Tron address: ${describe(address)}`);
}

/** Base58check `T...` form of either encoding. */
export function toBase58Address(address: string): string {
  const hex = toHexAddress(address);
  return base58OfAddressBytes(Buffer.from(hex, 'hex'));
}

/** The address as a 32-byte ABI word: the 20 account bytes left-padded with zeros (no 0x41 byte). */
export function addressToAbiWord(address: string): string {
  return toHexAddress(address).slice(2).padStart(64, '0');
}

/** Hex of a node log address (20 bytes, no prefix) or 41-hex, as base58. */
export function fromNodeAddress(address: string): string {
  return toBase58Address(address.length === 40 ? `41${address}` : address);
}

function describe(value: unknown): string {
  if (typeof value !== 'string') return typeof value;
  // Echo short inputs only: a pasted private key must not end up in an error message.
  return value.length <= 44 ? JSON.stringify(value) : `(${value.length} characters, not shown)`;
}
