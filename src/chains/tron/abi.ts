/**
 * The little ABI coding the TRC20/TRC721 calls need: static words in, uint/string/bytes32 out.
 * Hand-written because the shapes are fixed and a wrong word must be reported, not guessed at.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { addressToAbiWord } from './address.ts';
import { TronInputError } from './errors.ts';

const UINT256_MAX = (1n << 256n) - 1n;
/** Error(string) selector: what `revert("reason")` and `require(cond, "reason")` return. */
const ERROR_SELECTOR = '08c379a0';
/** Panic(uint256): Solidity >= 0.8 assertion and arithmetic failures. */
const PANIC_SELECTOR = '4e487b71';

/** 4-byte selector of a function signature such as `transfer(address,uint256)`, as hex. */
export function functionSelector(signature: string): string {
  return Buffer.from(keccak_256(new TextEncoder().encode(signature)).subarray(0, 4)).toString('hex');
}

export function uintWord(value: bigint): string {
  if (value < 0n || value > UINT256_MAX) throw new TronInputError('value does not fit in uint256');
  return value.toString(16).padStart(64, '0');
}

export function addressWord(address: string): string {
  return addressToAbiWord(address);
}

/** The first 32-byte word as an unsigned integer, or null when the output is shorter than a word. */
export function decodeUint(hex: string): bigint | null {
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length < 64) return null;
  return BigInt(`0x${hex.slice(0, 64)}`);
}

/**
 * A `string` return value; also reads the `bytes32` that old tokens (MKR-style) return for name and
 * symbol. Null when the output is neither.
 */
export function decodeString(hex: string): string | null {
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length < 64 || hex.length % 2 !== 0) return null;
  if (hex.length === 64) return bytesToText(hex.replace(/(00)+$/, ''));
  const offset = Number(BigInt(`0x${hex.slice(0, 64)}`));
  if (!Number.isSafeInteger(offset) || offset % 32 !== 0 || offset * 2 + 64 > hex.length) return null;
  const length = Number(BigInt(`0x${hex.slice(offset * 2, offset * 2 + 64)}`));
  const start = offset * 2 + 64;
  if (!Number.isSafeInteger(length) || start + length * 2 > hex.length) return null;
  return bytesToText(hex.slice(start, start + length * 2));
}

/** A human reason from revert data: Error(string) text, Panic code, or null when there is none. */
export function decodeRevertReason(hex: string): string | null {
  const data = hex.toLowerCase();
  if (data.startsWith(ERROR_SELECTOR)) return decodeString(data.slice(8));
  if (data.startsWith(PANIC_SELECTOR)) {
    const code = decodeUint(data.slice(8));
    return code === null ? null : `panic 0x${code.toString(16)}`;
  }
  return null;
}

function bytesToText(hex: string): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(hex, 'hex'));
  } catch {
    return null;
  }
}
