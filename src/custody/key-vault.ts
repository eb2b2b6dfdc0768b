import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { FULL_KDF_COST } from './kdf-cost.ts';
import type { KdfCaller } from './kdf-scheduler.ts';
import { deriveKey, type ScryptCost } from './scrypt.ts';

/**
 * Private keys at rest: scrypt (N = 2^17, r = 8, p = 1: 128 MiB, the OWASP floor) derives a key from the
 * wallet password with a random salt; AES-256-GCM seals the private key with a random nonce, bound to the
 * row it belongs to through the additional data, so a sealed key copied to another row does not open.
 * The parameters travel with the ciphertext so they can be raised later without breaking old keys.
 * Node runs scrypt on its thread pool, off the event loop; the KDF scheduler shares that pool fairly
 * between users.
 */
export interface SealedKey {
  v: 1;
  kdf: 'scrypt';
  n: number;
  r: number;
  p: number;
  salt: string;
  nonce: string;
  ciphertext: string;
  tag: string;
}

export class WrongPasswordError extends Error {
  constructor() {
    super('Wrong password provided');
    this.name = 'WrongPasswordError';
  }
}

/**
 * Seals `secret` (raw key bytes) under `password`; `binding` names the owner row (user, chain, address);
 * `caller` says whose turn on the KDF scheduler this is; `cost` is the configured one (KDF_COST), the
 * full cost unless said.
 */
export async function sealKey(
  secret: Uint8Array,
  password: string,
  binding: string,
  caller: KdfCaller = {},
  cost: ScryptCost = FULL_KDF_COST.sealedKeys,
): Promise<string> {
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const key = await deriveKey(password, salt, cost, caller);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(binding, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  const sealed: SealedKey = {
    v: 1,
    kdf: 'scrypt',
    n: cost.n,
    r: cost.r,
    p: cost.p,
    salt: salt.toString('base64'),
    nonce: nonce.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
  return JSON.stringify(sealed);
}

/** Opens a sealed key; a wrong password (or a different binding) is a WrongPasswordError. */
export async function openKey(
  stored: string,
  password: string,
  binding: string,
  caller: KdfCaller = {},
): Promise<Buffer> {
  const sealed = JSON.parse(stored) as SealedKey;
  if (sealed.v !== 1 || sealed.kdf !== 'scrypt') throw new Error(`unknown sealed key format v${sealed.v}`);
  const key = await deriveKey(password, Buffer.from(sealed.salt, 'base64'), sealed, caller);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'base64'));
  decipher.setAAD(Buffer.from(binding, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  } catch {
    throw new WrongPasswordError();
  }
}
