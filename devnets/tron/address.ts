// Tron address codec: 21 bytes (0x41 || 20-byte account id), shown as hex or base58check.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

export const ADDRESS_PREFIX = 0x41;
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Lowercase 42-char hex with the 41 prefix: the canonical in-memory form. */
export type HexAddress = string;

export function base58Encode(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

export function base58Decode(text: string): Uint8Array {
  let n = 0n;
  for (const ch of text) {
    const i = ALPHABET.indexOf(ch);
    if (i < 0) throw new Error(`invalid base58 character ${ch}`);
    n = n * 58n + BigInt(i);
  }
  const body: number[] = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const ch of text) {
    if (ch !== '1') break;
    body.unshift(0);
  }
  return Uint8Array.from(body);
}

function checksum(payload: Uint8Array): Uint8Array {
  return sha256(sha256(payload)).subarray(0, 4);
}

export function encodeBase58Check(payload: Uint8Array): string {
  const sum = checksum(payload);
  const full = new Uint8Array(payload.length + 4);
  full.set(payload);
  full.set(sum, payload.length);
  return base58Encode(full);
}

/** Returns the payload, or null when the checksum or alphabet is wrong. */
export function decodeBase58Check(text: string): Uint8Array | null {
  let full: Uint8Array;
  try {
    full = base58Decode(text);
  } catch {
    return null;
  }
  if (full.length < 5) return null;
  const payload = full.subarray(0, full.length - 4);
  const sum = checksum(payload);
  for (let i = 0; i < 4; i++) if (full[payload.length + i] !== sum[i]) return null;
  return payload;
}

/** java-tron's DecodeUtil.addressValid: 21 bytes starting with the network prefix. */
export function isValidAddressBytes(bytes: Uint8Array): boolean {
  return bytes.length === 21 && bytes[0] === ADDRESS_PREFIX;
}

export function hexAddressToBase58(hex: HexAddress): string {
  return encodeBase58Check(hexToBytes(hex));
}

/** Base58 (T...) or 41-hex (with or without 0x) to canonical hex; null when it is neither. */
export function parseAddress(input: string): HexAddress | null {
  const text = input.trim();
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) {
    const payload = decodeBase58Check(text);
    return payload && isValidAddressBytes(payload) ? bytesToHex(payload) : null;
  }
  const hex = text.replace(/^0x/i, '').toLowerCase();
  if (/^41[0-9a-f]{40}$/.test(hex)) return hex;
  return null;
}

export function evmToTronHex(evm20: Uint8Array): HexAddress {
  return `41${bytesToHex(evm20)}`;
}

/** The EVM sees Tron addresses without the 0x41 prefix. */
export function tronHexToEvm(hex: HexAddress): Uint8Array {
  return hexToBytes(hex.slice(2));
}

export function addressFromPublicKey(publicKey: Uint8Array): HexAddress {
  const uncompressed =
    publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return evmToTronHex(keccak_256(uncompressed.subarray(1)).subarray(12));
}

export function addressFromPrivateKey(privateKey: Uint8Array): HexAddress {
  return addressFromPublicKey(secp256k1.getPublicKey(privateKey, false));
}
