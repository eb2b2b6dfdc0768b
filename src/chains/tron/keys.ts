/**
 * secp256k1 key pairs in Tron's encodings. Errors describe what is wrong with a key, never the key.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { ChainKeyPair } from '../types.ts';
import { base58OfAddressBytes } from './address.ts';
import { TronInputError } from './errors.ts';

/** Order of the secp256k1 group: a private key must lie in [1, n-1]. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface TronKeyPair extends ChainKeyPair {
  /** 64 lower-case hex characters, no 0x. */
  privateKey: string;
  /** Uncompressed public key, `04` + x + y, lower-case hex. */
  publicKey: string;
  /** Base58check `T...`. */
  address: string;
  /** 41-prefixed lower-case hex. */
  hexAddress: string;
}

/** A fresh random key pair (the key drawn from the platform CSPRNG). */
export function generateTronKey(): TronKeyPair {
  return tronKeyFromPrivate(Buffer.from(secp256k1.utils.randomSecretKey()).toString('hex'));
}

/** The 21 address bytes of an uncompressed public key: `41` + the last 20 bytes of keccak256(x || y). */
export function addressBytesOf(uncompressedPublicKey: Uint8Array): Uint8Array {
  const hash = keccak_256(uncompressedPublicKey.subarray(1));
  return Uint8Array.of(0x41, ...hash.subarray(12));
}

/** The key pair of a hex private key (64 hex characters, optional 0x). */
export function tronKeyFromPrivate(privateKeyHex: string): TronKeyPair {
  const privateKey = normalizePrivateKey(privateKeyHex);
  const publicKeyBytes = secp256k1.getPublicKey(Buffer.from(privateKey, 'hex'), false);
  const addressBytes = addressBytesOf(publicKeyBytes);
  return {
    privateKey,
    publicKey: Buffer.from(publicKeyBytes).toString('hex'),
    address: base58OfAddressBytes(addressBytes),
    hexAddress: Buffer.from(addressBytes).toString('hex'),
  };
}

/** Validated 64-char lower-case hex; throws TronInputError with a reason that never echoes the key. */
export function normalizePrivateKey(privateKeyHex: string): string {
  if (typeof privateKeyHex !== 'string') throw new TronInputError('private key must be a hex string');
  const hex = privateKeyHex.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new TronInputError(
      'private key must be 64 hexadecimal characters (32 bytes), optionally prefixed with 0x',
    );
  }
  const value = BigInt(`0x${hex}`);
  if (value === 0n || value >= SECP256K1_N) {
    throw new TronInputError('private key is outside the valid secp256k1 range');
  }
  return hex.toLowerCase();
}
