/**
 * Solana keys: ed25519 key pairs whose address is the base58 public key. Inside the gateway a key is its
 * 32-byte seed in hex (what custody seals); wallets show it as the 64-byte seed || public key in base58,
 * the form Phantom, Solflare and `Keypair.fromSecretKey` take, and the CLI's keypair file holds the same
 * 64 bytes as a JSON array.
 */
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import type { ChainKeyPair } from '../types.ts';
import { fromBase58, toBase58 } from './codec.ts';

export const SEED_BYTES = 32;

/** The key pair of a 32-byte seed. */
export function solanaKeyFromSeed(seed: Uint8Array): ChainKeyPair {
  if (seed.length !== SEED_BYTES) throw new Error('a Solana seed is 32 bytes');
  const address = toBase58(ed25519.getPublicKey(seed));
  return { address, publicKey: address, privateKey: Buffer.from(seed).toString('hex') };
}

export function generateSolanaKey(): ChainKeyPair {
  return solanaKeyFromSeed(randomBytes(SEED_BYTES));
}

/**
 * A key in any form a Solana user holds one: the 64-byte secret in base58 or as a JSON byte array
 * (its second half must be the seed's public key), or the 32-byte seed in hex (0x optional) or base58.
 * Throws for anything else.
 */
export function solanaKeyFromPrivate(input: string): ChainKeyPair {
  const secret = secretBytes(input.trim());
  if (secret === null) throw new Error('not a Solana private key');
  const pair = solanaKeyFromSeed(secret.subarray(0, SEED_BYTES));
  if (secret.length === 64 && toBase58(secret.subarray(SEED_BYTES)) !== pair.address) {
    throw new Error('the secret key holds a public key that is not its seed’s');
  }
  return pair;
}

function secretBytes(text: string): Uint8Array | null {
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text.replace(/^0x/, ''), 'hex');
  if (text.startsWith('[')) return byteArray(text);
  const bytes = fromBase58(text);
  return bytes !== null && (bytes.length === 64 || bytes.length === SEED_BYTES) ? bytes : null;
}

/** The CLI keypair file's form: a JSON array of 64 numbers from 0 to 255. */
function byteArray(text: string): Uint8Array | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 64) return null;
  if (!parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) return null;
  return Uint8Array.from(parsed);
}

/** The wallet form of a stored key (hex seed): the 64-byte seed || public key in base58. */
export function walletSecretKey(seedHex: string): string {
  const seed = Buffer.from(seedHex, 'hex');
  return toBase58(Uint8Array.from([...seed, ...ed25519.getPublicKey(seed)]));
}

/** True when `address` is base58 of 32 bytes (any public key or program address). */
export function isSolanaAddress(address: string): boolean {
  if (address.length < 32 || address.length > 44) return false;
  return fromBase58(address)?.length === 32;
}
