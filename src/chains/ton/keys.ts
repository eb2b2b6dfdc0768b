/**
 * TON keys: ed25519, kept by custody as the 32-byte seed in hex. A key's address is its V5R1 wallet on
 * the network (wallet-v5r1.ts), answered non-bounceable with the network's test-only flag (`UQ…` on
 * mainnet, `0Q…` on testnet), so one key has a different address on each network.
 *
 * A key is imported as a wallet's 24-word mnemonic (TON's own scheme, not BIP-39's: the words are an
 * HMAC-SHA512 key, stretched by PBKDF2; only the word list is shared) or as the seed in hex or base64.
 */
import { createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import type { KeyCodec } from '../key-codec.ts';
import type { ChainKeyPair, Network } from '../types.ts';
import { tonAddressOf, walletAddress } from './address.ts';
import { v5r1Address } from './wallet-v5r1.ts';

export const SEED_BYTES = 32;
/** PBKDF2 rounds of TON's mnemonic scheme, for the key; a 256th of it tells a mnemonic's kind. */
const MNEMONIC_ROUNDS = 100_000;
const WORDS = new Set(wordlist);

/** The key pair of a 32-byte seed, its address the seed's V5R1 wallet on `network`. */
export function tonKeyFromSeed(seed: Uint8Array, network: Network): ChainKeyPair {
  if (seed.length !== SEED_BYTES) throw new Error('a TON seed is 32 bytes');
  const publicKey = ed25519.getPublicKey(seed);
  return {
    address: walletAddress(v5r1Address(publicKey, network), network),
    publicKey: Buffer.from(publicKey).toString('hex'),
    privateKey: Buffer.from(seed).toString('hex'),
  };
}

export function generateTonKey(network: Network): ChainKeyPair {
  return tonKeyFromSeed(randomBytes(SEED_BYTES), network);
}

/** The words of a mnemonic as wallets write them: lower case, separated by any white space. */
function mnemonicWords(text: string): string[] | null {
  const words = text.trim().toLowerCase().split(/\s+/);
  return words.length === 24 && words.every((word) => WORDS.has(word)) ? words : null;
}

/**
 * The seed of a 24-word TON mnemonic without a password; null when the words are not one (a word outside
 * the list, or words whose check fails: a BIP-39 phrase, a mistyped word, a password-protected mnemonic).
 */
export function mnemonicSeed(text: string): Uint8Array | null {
  const words = mnemonicWords(text);
  if (words === null) return null;
  const entropy = createHmac('sha512', words.join(' ')).update('').digest();
  // A mnemonic made for use without a password hashes, with this salt, to a first byte of 0.
  const check = pbkdf2Sync(entropy, 'TON seed version', Math.floor(MNEMONIC_ROUNDS / 256), 64, 'sha512');
  if (check[0] !== 0) return null;
  return pbkdf2Sync(entropy, 'TON default seed', MNEMONIC_ROUNDS, 64, 'sha512').subarray(0, SEED_BYTES);
}

/** The seed in a private key's text: a mnemonic, 64 hex characters (0x optional) or base64 of 32 bytes. */
function seedOf(text: string): Uint8Array | null {
  const trimmed = text.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed.replace(/^0x/, ''), 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === SEED_BYTES) return bytes;
  }
  return /\s/.test(trimmed) ? mnemonicSeed(trimmed) : null;
}

/** A key in any form a TON user holds one; throws for anything else. */
export function tonKeyFromPrivate(text: string, network: Network): ChainKeyPair {
  const seed = seedOf(text);
  if (seed === null) throw new Error('not a TON private key');
  return tonKeyFromSeed(seed, network);
}

/** The form custody stores and compares a TON address in on `network`: the wallet form (`UQ…`/`0Q…`). */
export function tonStoredAddress(address: string, network: Network): string {
  const parsed = tonAddressOf(address);
  return parsed === null ? address : walletAddress(parsed, network);
}

/** How TON keys are made and read on `network`. */
export function tonKeyCodec(network: Network): KeyCodec {
  return {
    generate: () => generateTonKey(network),
    fromPrivateKey: (privateKey) => tonKeyFromPrivate(privateKey, network),
    privateKeyForm: 'a 24-word TON mnemonic, or the 32-byte ed25519 seed in hex or base64',
    normalizeAddress: (address) => tonStoredAddress(address, network),
  };
}
