/**
 * A token's name, symbol and URI, where the chain holds them: Token-2022's metadata extension inside
 * the mint, or else the Metaplex Token Metadata account of the mint (the form most SPL tokens use).
 */
import type { SolanaAdapter } from './adapter.ts';
import { solanaKit } from './kit.ts';
import { TOKEN_ACCOUNT_BYTES } from './token-accounts.ts';

export const METAPLEX_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
/** Token-2022's TLV extension type of the TokenMetadata extension. */
const TOKEN_METADATA_EXTENSION = 19;
/** Metaplex's account key for a MetadataV1 account. */
const METADATA_V1 = 4;

export interface TokenMetadata {
  name: string;
  symbol: string;
  uri: string;
}

/** Reads u32-length-prefixed strings from `at`; null when the bytes end first. */
function strings(data: Uint8Array, at: number, count: number): string[] | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: string[] = [];
  let offset = at;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > data.length) return null;
    const length = view.getUint32(offset, true);
    offset += 4;
    if (offset + length > data.length) return null;
    // Metaplex pads its strings with NULs to a fixed size.
    out.push(new TextDecoder().decode(data.subarray(offset, offset + length)).replace(/\0+$/, ''));
    offset += length;
  }
  return out;
}

function asMetadata(values: string[] | null): TokenMetadata | null {
  if (values === null) return null;
  const [name = '', symbol = '', uri = ''] = values;
  return { name, symbol, uri };
}

/** The TokenMetadata extension of a Token-2022 mint's data; null when it has none. */
function token2022Metadata(mintData: Uint8Array): TokenMetadata | null {
  // Extensions follow the base account (padded to a token account's size) and its account-type byte.
  const view = new DataView(mintData.buffer, mintData.byteOffset, mintData.byteLength);
  let offset = TOKEN_ACCOUNT_BYTES + 1;
  while (offset + 4 <= mintData.length) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    const start = offset + 4;
    if (type === TOKEN_METADATA_EXTENSION) {
      // update authority (32) and mint (32), then name, symbol and uri.
      return asMetadata(strings(mintData.subarray(start, start + length), 64, 3));
    }
    if (type === 0) return null;
    offset = start + length;
  }
  return null;
}

/** A Metaplex MetadataV1 account's name, symbol and URI; null when the data is not one. */
function metaplexMetadata(data: Uint8Array): TokenMetadata | null {
  if (data[0] !== METADATA_V1) return null;
  // key (1), update authority (32), mint (32), then name, symbol and uri.
  return asMetadata(strings(data, 65, 3));
}

/** The mint's metadata, from the extension or from the Metaplex account; null when neither exists. */
export async function readTokenMetadata(
  adapter: SolanaAdapter,
  mint: string,
  mintData: Uint8Array,
): Promise<TokenMetadata | null> {
  const inMint = token2022Metadata(mintData);
  if (inMint !== null) return inMint;
  const { address, getAddressEncoder, getProgramDerivedAddress } = await solanaKit();
  const program = address(METAPLEX_METADATA_PROGRAM);
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: program,
    seeds: ['metadata', encoder.encode(program), encoder.encode(address(mint))],
  });
  const account = await adapter.getAccount(pda);
  return account === null || account.owner !== METAPLEX_METADATA_PROGRAM
    ? null
    : metaplexMetadata(account.data);
}
