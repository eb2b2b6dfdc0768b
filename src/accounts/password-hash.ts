import { randomBytes, timingSafeEqual } from 'node:crypto';
import { FULL_KDF_COST } from '../custody/kdf-cost.ts';
import type { KdfCaller } from '../custody/kdf-scheduler.ts';
import { deriveKey, type ScryptCost } from '../custody/scrypt.ts';

/**
 * Dashboard passwords: scrypt (N = 2^16, r = 8, p = 1: 64 MiB a guess; the configured KDF_COST, the full
 * one unless said) with a random salt, in the form `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, so the cost
 * can be raised later without breaking old hashes. Derivations share the KDF scheduler with the custody
 * keys: sign-ins cannot starve sends, nor the reverse.
 */
const FULL_COST = FULL_KDF_COST.passwords;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

export async function hashPassword(
  password: string,
  caller: KdfCaller,
  cost: ScryptCost = FULL_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const hash = await deriveKey(password, salt, cost, caller);
  const { n, r, p } = cost;
  return ['scrypt', Math.log2(n), r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * What an unknown email's password is checked against: random bytes in a hash's form and at its cost, so
 * refusing it takes one derivation, as a wrong password does, and no password matches it.
 */
export function decoyPasswordHash(cost: ScryptCost = FULL_COST): string {
  const { n, r, p } = cost;
  const [salt, hash] = [randomBytes(16), randomBytes(32)].map((bytes) => bytes.toString('base64url'));
  return ['scrypt', Math.log2(n), r, p, salt, hash].join('$');
}

/** False for a wrong password and for a stored value this code cannot read. */
export async function passwordMatches(password: string, stored: string, caller: KdfCaller): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((v) => Number.isInteger(v) && v > 0 && v < 32)) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const derived = await deriveKey(
    password,
    Buffer.from(parts[4]!, 'base64url'),
    { n: 2 ** logN, r, p },
    caller,
  );
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}
