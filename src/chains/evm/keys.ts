/**
 * EVM addresses and secp256k1 key pairs. Errors describe what is wrong with a key, never the key.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Address } from 'viem';
import type { ChainKeyPair } from '../types.ts';
import { EvmInputError } from './errors.ts';

/** Order of the secp256k1 group: a private key must lie in [1, n-1]. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** 40 hex digits with or without 0x, in any case: the API's own rule (`/^(0x)?[0-9a-f]{40}$/i`). */
const ADDRESS = /^(?:0x)?[0-9a-fA-F]{40}$/;

export interface EvmKeyPair extends ChainKeyPair {
  /** 64 lower-case hex characters without 0x: the form the custody layer seals. */
  privateKey: string;
  /** Uncompressed public key `0x04` + x + y, lower-case hex. */
  publicKey: string;
  /** EIP-55 checksummed `0x...`. */
  address: Address;
}

/**
 * What is wrong with an address as typed, or null when it can be used: `format` when it is not 40 hex
 * digits (optional 0x); `checksum` when it is mixed case and the case is not its EIP-55 checksum, which
 * is how a typo shows. All lower or all upper case carries no checksum and is accepted, as geth and
 * ethers accept it.
 */
export type EvmAddressProblem = 'format' | 'checksum';

export function evmAddressProblem(address: unknown): EvmAddressProblem | null {
  if (typeof address !== 'string' || !ADDRESS.test(address)) return 'format';
  const hex = address.replace(/^0x/, '');
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return null;
  return eip55(hex.toLowerCase()).slice(2) === hex ? null : 'checksum';
}

/** True for an address `evmAddressProblem` finds nothing wrong with. */
export function isEvmAddress(address: unknown): address is string {
  return evmAddressProblem(address) === null;
}

/**
 * The field error for an address field, or null when the address is fine. It never repeats the input
 * (a key pasted into the wrong field must not come back in an error), nor the checksummed form of a
 * mistyped address, which would invite copying the typo.
 */
export function evmAddressFieldMessage(field: string, address: unknown): string | null {
  switch (evmAddressProblem(address)) {
    case null:
      return null;
    case 'checksum':
      return `The ${field} field has an invalid EIP-55 checksum (a typo?).`;
    default:
      return `The ${field} field must be an EVM address (0x and 40 hex digits).`;
  }
}

/** EIP-55 form of an address given in any case, with or without 0x; a wrong checksum is refused. */
export function checksumAddress(address: string): Address {
  const problem = evmAddressProblem(address);
  if (problem === 'checksum') throw new EvmInputError(`${address} has an invalid EIP-55 checksum`);
  if (problem !== null) throw new EvmInputError('not an EVM address (0x and 40 hex digits)');
  return eip55(address.replace(/^0x/, '').toLowerCase());
}

/** EIP-55: a letter of the address is upper case where the same nibble of its keccak256 is 8 or more. */
function eip55(lowerHex: string): Address {
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lowerHex)));
  let digits = '';
  for (let i = 0; i < lowerHex.length; i++) {
    const digit = lowerHex[i] ?? '';
    digits += Number.parseInt(hash[i] ?? '0', 16) >= 8 ? digit.toUpperCase() : digit;
  }
  return `0x${digits}`;
}

/** A fresh random key pair (noble draws from the platform CSPRNG). */
export function generateEvmKey(): EvmKeyPair {
  return evmKeyFromBytes(secp256k1.utils.randomSecretKey());
}

/** The key pair of a hex private key (64 hex characters, optional 0x). */
export function evmKeyFromPrivate(privateKeyHex: string): EvmKeyPair {
  return evmKeyFromBytes(hexToBytes(normalizePrivateKey(privateKeyHex)));
}

export function evmKeyFromBytes(secret: Uint8Array): EvmKeyPair {
  const publicKey = secp256k1.getPublicKey(secret, false);
  const address = bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12));
  return {
    privateKey: bytesToHex(secret),
    publicKey: `0x${bytesToHex(publicKey)}`,
    address: eip55(address),
  };
}

/** Validated 64-char lower-case hex without 0x; the reason never echoes the key. */
export function normalizePrivateKey(privateKeyHex: string): string {
  if (typeof privateKeyHex !== 'string') throw new EvmInputError('private key must be a hex string');
  const hex = privateKeyHex.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new EvmInputError(
      'private key must be 64 hexadecimal characters (32 bytes), optionally prefixed with 0x',
    );
  }
  const value = BigInt(`0x${hex}`);
  if (value === 0n || value >= SECP256K1_N) {
    throw new EvmInputError('private key is outside the valid secp256k1 range');
  }
  return hex.toLowerCase();
}
