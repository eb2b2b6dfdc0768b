/**
 * The SPL token programs' accounts as the gateway reads them: a mint (82 bytes, then Token-2022's
 * extensions) and a token account (165 bytes), the same base layout under both programs.
 */
import { toBase58 } from './codec.ts';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];

const MINT_BYTES = 82;
export const TOKEN_ACCOUNT_BYTES = 165;
/** A Token-2022 associated account carries the ImmutableOwner extension: the account type and its TLV. */
export const TOKEN_2022_ACCOUNT_BYTES = 170;

export interface Mint {
  program: string;
  supply: bigint;
  decimals: number;
  mintAuthority: string | null;
  freezeAuthority: string | null;
}

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
}

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/** A COption<Pubkey>: a u32 tag, then the key. */
function optionalKey(data: Uint8Array, at: number): string | null {
  return view(data).getUint32(at, true) === 1 ? toBase58(data.subarray(at + 4, at + 36)) : null;
}

/** The mint an account of `program` holds; null when it is no mint. */
export function decodeMint(program: string, data: Uint8Array): Mint | null {
  if (!TOKEN_PROGRAMS.includes(program) || data.length < MINT_BYTES) return null;
  // A token account is longer but never exactly a mint's size; Token-2022 mints with extensions are
  // longer too, and mark themselves (account type 1) right after the base account's 165 bytes.
  if (data.length !== MINT_BYTES && !(data.length > TOKEN_ACCOUNT_BYTES && data[TOKEN_ACCOUNT_BYTES] === 1))
    return null;
  if (data[45] !== 1) return null; // not initialized
  return {
    program,
    mintAuthority: optionalKey(data, 0),
    supply: view(data).getBigUint64(36, true),
    decimals: data[44] ?? 0,
    freezeAuthority: optionalKey(data, 46),
  };
}

/** The token account an account of `program` holds; null when it is none. */
export function decodeTokenAccount(program: string, data: Uint8Array): TokenAccount | null {
  if (!TOKEN_PROGRAMS.includes(program) || data.length < TOKEN_ACCOUNT_BYTES) return null;
  if (data.length > TOKEN_ACCOUNT_BYTES && data[TOKEN_ACCOUNT_BYTES] !== 2) return null;
  if (data[108] === 0) return null; // uninitialized
  return {
    mint: toBase58(data.subarray(0, 32)),
    owner: toBase58(data.subarray(32, 64)),
    amount: view(data).getBigUint64(64, true),
  };
}
