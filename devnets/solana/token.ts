// SPL Token layouts: the 165-byte token account and the 82-byte mint, and their jsonParsed forms.
import { toBase58 } from './codec.ts';
import type { Json } from './json.ts';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const TOKEN_ACCOUNT_SIZE = 165;
export const MINT_SIZE = 82;

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

export function decodeTokenAccount(data: Uint8Array): TokenAccount | null {
  if (data.length !== TOKEN_ACCOUNT_SIZE) return null;
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
  if (data.length !== MINT_SIZE || data[45] !== 1) return null;
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

export function parsedTokenAccount(acc: TokenAccount, decimals: number): Json {
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
  return { program: 'spl-token', parsed: { info, type: 'account' }, space: TOKEN_ACCOUNT_SIZE };
}

export function parsedMint(mint: Mint): Json {
  return {
    program: 'spl-token',
    parsed: {
      info: {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString(),
      },
      type: 'mint',
    },
    space: MINT_SIZE,
  };
}
