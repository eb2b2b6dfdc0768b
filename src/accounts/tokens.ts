import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API tokens look like `swy_<12 hex id>_<43 base64url secret>`: the id is a public lookup key (shown in
 * lists), the secret carries 256 bits of entropy and is stored only as its SHA-256.
 */
const TOKEN_PATTERN = /^swy_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewToken {
  id: string;
  /** The full token, shown once. */
  token: string;
  secretHash: string;
}

export function generateToken(): NewToken {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `swy_${id}_${secret}`, secretHash: hashSecret(secret) };
}

export function parseToken(token: string): { id: string; secret: string } | null {
  const match = TOKEN_PATTERN.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

// One-shot hashing: every authenticated request hashes its secret, and a Hash object per call cost twice as much.
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of a presented secret against a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = hash('sha256', secret, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The readable, non-secret prefix shown in token lists. */
export function tokenPrefix(id: string): string {
  return `swy_${id}`;
}
