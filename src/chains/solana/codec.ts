/** Base58 and base64, as Solana writes keys, signatures and wire transactions. */
import { getBase58Decoder, getBase58Encoder, getBase64Decoder, getBase64Encoder } from '@solana/kit';

const base58Bytes = getBase58Encoder();
const base58Text = getBase58Decoder();
const base64Bytes = getBase64Encoder();
const base64Text = getBase64Decoder();

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of base58 text; null when it is not base58. */
export function fromBase58(text: string): Uint8Array | null {
  if (!BASE58.test(text)) return null;
  return Uint8Array.from(base58Bytes.encode(text));
}

export function toBase58(bytes: Uint8Array): string {
  return base58Text.decode(bytes);
}

/** The bytes of base64 text; null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return null;
  return Uint8Array.from(base64Bytes.encode(text));
}

export function toBase64(bytes: Uint8Array): string {
  return base64Text.decode(bytes);
}
