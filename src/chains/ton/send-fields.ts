/** The schemas of a send's address and key fields. */
import { type TString, Type } from '@sinclair/typebox';

/** A TON address in any form: raw `0:<hex>`, or user-friendly base64 (bounceable or not). */
export function tonAddress(
  description = 'A TON address: raw 0:<64 hex> or user-friendly (48 base64 characters)',
): TString {
  return Type.String({ pattern: '^(-?[0-9]+:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{48})$', description });
}

export const TonPrivateKey = Type.String({
  minLength: 1,
  maxLength: 400,
  description: 'Private key, never stored: the 24-word mnemonic or the 32-byte ed25519 seed in hex',
});
