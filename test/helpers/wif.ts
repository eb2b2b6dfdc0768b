// WIF (compressed, mainnet) written and read with @scure/base, apart from the gateway's own key code, so
// a test's keys do not depend on what it tests.
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

const base58check = createBase58check(sha256);
const MAINNET = 0x80;
const COMPRESSED = 0x01;

export function encodeWif(secret: Uint8Array, version = MAINNET): string {
  return base58check.encode(Uint8Array.from([version, ...secret, COMPRESSED]));
}

export function decodeWif(wif: string): Uint8Array {
  const bytes = base58check.decode(wif);
  if (bytes.length !== 34 || bytes[33] !== COMPRESSED) throw new Error('not a compressed WIF');
  return bytes.slice(1, 33);
}
