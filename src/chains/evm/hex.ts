/**
 * The hex helpers the family calls on every request, written here on @noble/hashes (loaded at start by the
 * family's keys) so that reading a hex string or hashing a transaction does not load viem: its encoders
 * and decoders come through `viemUtils` when a transaction or a contract call is built or decoded.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Hex } from 'viem';

const HEX = /^0x[0-9a-fA-F]*$/;

/** `0x` and hex digits, in any case, any length (`0x` alone included), as viem's `isHex` reads it. */
export function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && HEX.test(value);
}

/** keccak256 of the bytes `value` holds, as 0x-prefixed lower-case hex. */
export function keccak256(value: Hex): Hex {
  return `0x${bytesToHex(keccak_256(bytesOf(value)))}`;
}

/** The bytes of an even-length hex string. */
export function bytesOf(value: Hex): Uint8Array {
  return hexToBytes(value.slice(2));
}
