/**
 * EVM addresses and secp256k1 key pairs. Errors describe what is wrong with a key, never the key.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { type Address, getAddress } from 'viem';
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
 * True for 40 hex digits, optional 0x, any case. A mixed-case address with a wrong EIP-55 checksum is
 * accepted too, like the API it is compatible with; `checksumAddress` gives the canonical form.
 */
export function isEvmAddress(address: unknown): address is string {
  return typeof address === 'string' && ADDRESS.test(address);
}

/** EIP-55 form of an address given in any case, with or without 0x. */
export function checksumAddress(address: string): Address {
  if (!isEvmAddress(address)) throw new EvmInputError(`${String(address)} is not an EVM address`);
  const hex = address.replace(/^0x/, '').toLowerCase();
  return getAddress(`0x${hex}`);
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
    address: getAddress(`0x${address}`),
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
