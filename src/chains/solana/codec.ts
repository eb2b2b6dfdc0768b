/**
 * Base58 and base64, as Solana writes keys, signatures and wire transactions: @scure/base's base58
 * (in use at start for Bitcoin and Tron addresses) and Node's base64, so that checking an address loads no
 * @solana/kit.
 */
import { base58 } from '@scure/base';

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of base58 text; null when it is not base58. */
export function fromBase58(text: string): Uint8Array | null {
  if (!BASE58.test(text)) return null;
  return base58.decode(text);
}

export function toBase58(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

/** The bytes of base64 text; null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
