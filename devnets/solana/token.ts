// SPL Token layouts: the 165-byte token account and the 82-byte mint, and their jsonParsed forms. Token-2022
// uses the same base layouts; its extensions follow after an account-type byte at offset 165.
import { toBase58 } from './codec.ts';
import type { Json } from './json.ts';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const TOKEN_ACCOUNT_SIZE = 165;
export const MINT_SIZE = 82;
// Token-2022's AccountType byte, written after the base layout (mints are padded to 165 first).
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export const isTokenProgram = (program: string): boolean =>
  program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;

/** The jsonParsed `program` name the node gives each token program. */
export const parsedProgramName = (program: string): string =>
  program === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: boolean;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface Mint {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

const view = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength);
const optKey = (d: Uint8Array, at: number): string | null =>
  view(d).getUint32(at, true) === 1 ? toBase58(d.subarray(at + 4, at + 36)) : null;

// A base layout alone, or (Token-2022) the base padded to 165 bytes, then the account type and extensions.
function hasLayout(data: Uint8Array, size: number, accountType: number): boolean {
  if (data.length === size) return true;
  return data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === accountType;
}

export function decodeTokenAccount(data: Uint8Array): TokenAccount | null {
  if (!hasLayout(data, TOKEN_ACCOUNT_SIZE, ACCOUNT_TYPE_ACCOUNT)) return null;
  const v = view(data);
  const stateByte = data[108];
  if (stateByte === 0 || stateByte === undefined || stateByte > 2) return null;
  return {
    mint: toBase58(data.subarray(0, 32)),
    owner: toBase58(data.subarray(32, 64)),
    amount: v.getBigUint64(64, true),
    delegate: optKey(data, 72),
    state: stateByte === 2 ? 'frozen' : 'initialized',
    isNative: v.getUint32(109, true) === 1,
    delegatedAmount: v.getBigUint64(121, true),
    closeAuthority: optKey(data, 129),
  };
}

export function decodeMint(data: Uint8Array): Mint | null {
  if (!hasLayout(data, MINT_SIZE, ACCOUNT_TYPE_MINT) || data[45] !== 1) return null;
  return {
    mintAuthority: optKey(data, 0),
    supply: view(data).getBigUint64(36, true),
    decimals: data[44] as number,
    isInitialized: true,
    freezeAuthority: optKey(data, 46),
  };
}

/** The node's UiTokenAmount: amount as a string, uiAmount as a display number, uiAmountString exact. */
export function uiTokenAmount(amount: bigint, decimals: number): Json {
  const base = 10n ** BigInt(decimals);
  const whole = amount / base;
  const frac = (amount % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  const uiAmountString = frac ? `${whole}.${frac}` : `${whole}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

// Extensions the node names without fields; any other is listed as the node lists one it cannot parse.
const FIELDLESS_EXTENSIONS: Record<number, string> = {
  7: 'immutableOwner',
  9: 'nonTransferable',
  13: 'nonTransferableAccount',
};

/** The Token-2022 extension list of an account (TLV entries after the account-type byte). */
function extensionsOf(data: Uint8Array): Json[] | null {
  if (data.length <= TOKEN_ACCOUNT_SIZE) return null;
  const v = view(data);
  const out: Json[] = [];
  for (let at = TOKEN_ACCOUNT_SIZE + 1; at + 4 <= data.length; ) {
    const type = v.getUint16(at, true);
    if (type === 0) break;
    out.push({ extension: FIELDLESS_EXTENSIONS[type] ?? 'unparseableExtension' });
    at += 4 + v.getUint16(at + 2, true);
  }
  // As agave: an empty list is left out.
  return out.length > 0 ? out : null;
}

export function parsedTokenAccount(
  acc: TokenAccount,
  decimals: number,
  program = TOKEN_PROGRAM,
  data?: Uint8Array,
): Json {
  const info: Record<string, Json> = {
    isNative: acc.isNative,
    mint: acc.mint,
    owner: acc.owner,
    state: acc.state,
    tokenAmount: uiTokenAmount(acc.amount, decimals),
  };
  if (acc.delegate) {
    info['delegate'] = acc.delegate;
    info['delegatedAmount'] = uiTokenAmount(acc.delegatedAmount, decimals);
  }
  if (acc.closeAuthority) info['closeAuthority'] = acc.closeAuthority;
  const extensions = data ? extensionsOf(data) : null;
  if (extensions) info['extensions'] = extensions;
  return {
    program: parsedProgramName(program),
    parsed: { info, type: 'account' },
    space: data?.length ?? TOKEN_ACCOUNT_SIZE,
  };
}

export function parsedMint(mint: Mint, program = TOKEN_PROGRAM, data?: Uint8Array): Json {
  const extensions = data ? extensionsOf(data) : null;
  return {
    program: parsedProgramName(program),
    parsed: {
      info: {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString(),
        ...(extensions ? { extensions } : {}),
      },
      type: 'mint',
    },
    space: data?.length ?? MINT_SIZE,
  };
}
