/**
 * Bitcoin keys: secp256k1 key pairs receiving at their P2WPKH address. Inside the gateway a key is its
 * 32 bytes in hex (what custody seals); wallets show it as a compressed WIF of the network.
 */

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import type { KeyCodec } from '../key-codec.ts';
import type { ChainKeyPair } from '../types.ts';
import { canonicalAddress, p2wpkhAddress } from './address.ts';
import { BITCOIN_NETWORKS, type BitcoinNetwork } from './networks.ts';

const base58check = createBase58check(sha256);

export const BITCOIN_PRIVATE_KEY_FORM = 'a WIF key (compressed) or 64 hex characters';

/** WIF's suffix byte saying the public key is compressed. */
const COMPRESSED = 0x01;

export function generateBitcoinKey(network: BitcoinNetwork): ChainKeyPair {
  return keyPairOf(secp256k1.utils.randomSecretKey(), network);
}

/**
 * A key as a compressed WIF of `network` or 64 hex characters (0x optional). Throws for an uncompressed
 * WIF (its P2WPKH output would be unspendable under policy), a WIF of another network, and keys outside
 * 1..n-1.
 */
export function bitcoinKeyFromPrivate(text: string, network: BitcoinNetwork): ChainKeyPair {
  const trimmed = text.trim();
  const secret = /^(0x)?[0-9a-fA-F]{64}$/.test(trimmed)
    ? Uint8Array.from(Buffer.from(trimmed.replace(/^0x/, ''), 'hex'))
    : wifSecret(trimmed, network);
  return keyPairOf(secret, network);
}

/** The compressed WIF of a hex private key on `network`. */
export function wifOf(privateKeyHex: string, network: BitcoinNetwork): string {
  const secret = secretOfHex(privateKeyHex);
  return base58check.encode(Uint8Array.from([network.wif, ...secret, COMPRESSED]));
}

/** The family's key codec on one network (addresses and WIF versions differ between networks). */
export function bitcoinKeyCodec(network: BitcoinNetwork): KeyCodec {
  return {
    generate: () => generateBitcoinKey(network),
    fromPrivateKey: (privateKey) => bitcoinKeyFromPrivate(privateKey, network),
    privateKeyForm: BITCOIN_PRIVATE_KEY_FORM,
    normalizeAddress: canonicalAddress,
  };
}

function keyPairOf(secret: Uint8Array, network: BitcoinNetwork): ChainKeyPair {
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error('the private key is out of range');
  const publicKey = secp256k1.getPublicKey(secret, true);
  return {
    address: p2wpkhAddress(publicKey, network),
    publicKey: Buffer.from(publicKey).toString('hex'),
    privateKey: Buffer.from(secret).toString('hex'),
  };
}

function secretOfHex(hex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('a Bitcoin private key is 64 hex characters');
  const secret = Uint8Array.from(Buffer.from(hex, 'hex'));
  if (!secp256k1.utils.isValidSecretKey(secret)) throw new Error('the private key is out of range');
  return secret;
}

function wifSecret(wif: string, network: BitcoinNetwork): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(wif);
  } catch {
    throw new Error(`not a Bitcoin private key: expected ${BITCOIN_PRIVATE_KEY_FORM}`);
  }
  const version = bytes[0];
  if (version !== network.wif) {
    const owner = Object.values(BITCOIN_NETWORKS).find((other) => other.wif === version);
    throw new Error(
      owner === undefined
        ? `not a Bitcoin private key: expected ${BITCOIN_PRIVATE_KEY_FORM}`
        : `the WIF key is for ${owner.wif === BITCOIN_NETWORKS.mainnet.wif ? 'mainnet' : 'a test network'}, not ${network.name}`,
    );
  }
  if (bytes.length === 33) throw new Error('an uncompressed WIF key cannot own a P2WPKH address');
  if (bytes.length !== 34 || bytes[33] !== COMPRESSED) throw new Error('not a well-formed WIF key');
  return bytes.slice(1, 33);
}
