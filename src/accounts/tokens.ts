import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API tokens look like `swy_<12 hex id>_<43 base64url secret>`: the id is a public lookup key (shown in
 * lists), the secret carries 256 bits of entropy and is stored only as its SHA-256.
 */
const ID = /^[0-9a-f]{12}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** `swy_`, the id, `_`, the secret. */
const TOKEN_LENGTH = 4 + 12 + 1 + 43;

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

// Every authenticated request parses its token: by position, each part tested, no capturing match.
export function parseToken(token: string): { id: string; secret: string } | null {
  if (token.length !== TOKEN_LENGTH || !token.startsWith('swy_') || token[16] !== '_') return null;
  const id = token.slice(4, 16);
  const secret = token.slice(17);
  return ID.test(id) && SECRET.test(secret) ? { id, secret } : null;
}

// One-shot hashing: every authenticated request hashes its secret, and a Hash object per call cost twice as much.
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** A stored hash's bytes, decoded once for the comparisons of every request it serves while cached. */
export function storedHash(hex: string): Buffer {
  return Buffer.from(hex, 'hex');
}

/** Constant-time comparison of a presented secret against a stored hash (see storedHash). */
export function secretMatches(secret: string, stored: Buffer): boolean {
  const presented = hash('sha256', secret, 'buffer');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** The readable, non-secret prefix shown in token lists. */
export function tokenPrefix(id: string): string {
  return `swy_${id}`;
}
