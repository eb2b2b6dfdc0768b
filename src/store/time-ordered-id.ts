import { randomBytes } from 'node:crypto';

/** Random bytes drawn at once and handed out 10 at a time: one call per id cost more than the id's other work. */
const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * A UUID (version 7: milliseconds since the epoch, then random bits) for a row appended in bulk. Ids made
 * later sort later, so an index on them grows at its right edge: a batch of inserts dirties a page or two
 * of it, where random UUIDs dirty one page per row (each written again at every commit).
 */
export function timeOrderedId(now = Date.now()): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(10 * POOL_IDS);
    offset = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(now, 0, 6);
  pool.copy(bytes, 6, offset, offset + 10);
  offset += 10;
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
