// Metaplex Token Metadata accounts for the demo mints, in the program's borsh layout, so a client reads a
// name and symbol the way it does on the real cluster. The program itself is not loaded: only its accounts.
import { type Address, getAddressEncoder, getProgramDerivedAddress, address as toAddress } from '@solana/kit';
import { fromBase58 } from './codec.ts';

export const METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
/** MetadataV1's MAX_METADATA_LEN: the size the program allocates, whatever the strings' lengths. */
export const METADATA_SIZE = 679;
const KEY_METADATA_V1 = 4;
// The program "puffs" each string with NULs to its maximum and writes that length, so every metadata
// account has the same field offsets; clients strip the NULs.
const MAX_NAME = 32;
const MAX_SYMBOL = 10;
const MAX_URI = 200;

export interface TokenMetadata {
  updateAuthority: string;
  mint: string;
  name: string;
  symbol: string;
  uri?: string;
}

/** The metadata PDA of a mint: seeds ["metadata", program id, mint]. */
export async function metadataAddress(mint: string): Promise<Address> {
  const enc = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: toAddress(METADATA_PROGRAM),
    seeds: ['metadata', enc.encode(toAddress(METADATA_PROGRAM)), enc.encode(toAddress(mint))],
  });
  return pda;
}

/** MetadataV1: key, update authority, mint, name/symbol/uri (u32 length + padded bytes), fee, flags. */
export function encodeMetadata(m: TokenMetadata): Uint8Array {
  const out = new Uint8Array(METADATA_SIZE);
  const view = new DataView(out.buffer);
  let at = 0;
  out[at++] = KEY_METADATA_V1;
  out.set(fromBase58(m.updateAuthority), at);
  at += 32;
  out.set(fromBase58(m.mint), at);
  at += 32;
  const text = (value: string, max: number) => {
    const bytes = new TextEncoder().encode(value);
    if (bytes.length > max) throw new Error(`metadata field "${value}" is longer than ${max} bytes`);
    view.setUint32(at, max, true);
    out.set(bytes, at + 4);
    at += 4 + max;
  };
  text(m.name, MAX_NAME);
  text(m.symbol, MAX_SYMBOL);
  text(m.uri ?? '', MAX_URI);
  view.setUint16(at, 0, true); // seller_fee_basis_points
  at += 2;
  out[at++] = 0; // creators: None
  out[at++] = 0; // primary_sale_happened
  out[at++] = 1; // is_mutable
  // edition_nonce, token_standard, collection, uses, ... : None (zeros).
  return out;
}
