// Blocks: the 80-byte header, its double SHA-256 hash, merkle roots, difficulty and chain work.
import { sha256 } from '@noble/hashes/sha2.js';
import type { Transaction } from 'bitcoinjs-lib';

export interface Block {
  height: number;
  hash: string;
  version: number;
  prevHash: string;
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
  txs: Transaction[];
}

export const dsha256 = (data: Uint8Array): Uint8Array => sha256(sha256(data));

/** Internal byte order (as hashed) to the display hex nodes write, and back. */
export const displayHex = (bytes: Uint8Array): string => Buffer.from(bytes).reverse().toString('hex');
export const internalBytes = (hex: string): Buffer => Buffer.from(hex, 'hex').reverse();

export function headerBytes(b: Omit<Block, 'hash' | 'height' | 'txs'>): Buffer {
  const out = Buffer.alloc(80);
  out.writeInt32LE(b.version, 0);
  internalBytes(b.prevHash).copy(out, 4);
  internalBytes(b.merkleRoot).copy(out, 36);
  out.writeUInt32LE(b.time, 68);
  out.writeUInt32LE(b.bits, 72);
  out.writeUInt32LE(b.nonce, 76);
  return out;
}

export const headerHash = (b: Omit<Block, 'hash' | 'height' | 'txs'>): string =>
  displayHex(dsha256(headerBytes(b)));

/**
 * A transaction's wtxid, as nodes show it: the hash of its full serialization (its txid when it has no
 * witness). bitcoinjs-lib's getHash(true) answers zeros for a coinbase, as the witness merkle tree wants.
 */
export const wtxidOf = (tx: Transaction): string => displayHex(dsha256(tx.toBuffer()));

/** The merkle root of hashes given in internal byte order (txids, or wtxids for the witness commitment). */
export function merkleRoot(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      const right = level[i + 1] ?? left;
      next.push(dsha256(Buffer.concat([left, right])));
    }
    level = next;
  }
  return level[0] as Uint8Array;
}

export function varInt(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}

/** The block as the network carries it (witness included). */
export function blockBytes(b: Block): Buffer {
  return Buffer.concat([headerBytes(b), varInt(b.txs.length), ...b.txs.map((tx) => tx.toBuffer())]);
}

export function blockSizes(b: Block): { size: number; strippedSize: number; weight: number } {
  const head = 80 + varInt(b.txs.length).length;
  let size = head;
  let stripped = head;
  for (const tx of b.txs) {
    size += tx.byteLength(true);
    stripped += tx.byteLength(false);
  }
  return { size, strippedSize: stripped, weight: stripped * 3 + size };
}

/** Core's GetDifficulty: the genesis target (bits 1d00ffff) over this block's, as a float. */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

/** The expected number of hashes a block of these bits takes: 2^256 / (target + 1). */
export function blockWork(bits: number): bigint {
  const exponent = BigInt((bits >>> 24) & 0xff);
  const mantissa = BigInt(bits & 0x007fffff);
  const target = exponent <= 3n ? mantissa >> (8n * (3n - exponent)) : mantissa << (8n * (exponent - 3n));
  return (1n << 256n) / (target + 1n);
}

/** The median of the last 11 block times ending at `times`' end (BIP-113 median time past). */
export function medianTime(times: number[]): number {
  const last = times.slice(-11).sort((a, b) => a - b);
  return last[Math.floor(last.length / 2)] ?? 0;
}
