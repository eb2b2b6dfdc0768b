/**
 * The address of a key's V5R1 wallet (the contract current TON wallets deploy), computed without the
 * chain library: an address is the hash of the contract's initial state, a cell holding references to
 * the code and data cells. The code is V5R1's published code, known here by its hash and depth; the
 * data cell is made of the key and the network's wallet id, and each cell's hash follows the TVM's
 * representation (two descriptor bytes, the bits padded to whole bytes, then the depths and hashes of the
 * references). test/unit/ton-keys.test.ts holds this to @ton/ton's WalletContractV5R1.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { Network } from '../types.ts';
import type { TonAddress } from './address.ts';

/** Each network's global id, which V5R1's wallet id mixes in so one key's wallets differ per network. */
export const TON_GLOBAL_ID: Record<Network, number> = { mainnet: -239, testnet: -3 };

/** The representation hash and depth of V5R1's code cell. */
const V5R1_CODE = {
  hash: Buffer.from('20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f', 'hex'),
  depth: 6,
};

/**
 * The client context of a wallet id: its top bit set, workchain 0, version v5r1 (0) and subwallet 0,
 * as 32 bits; the wallet id is it XORed with the network's global id.
 */
const CLIENT_CONTEXT = 0x8000_0000;

interface CellHash {
  hash: Uint8Array;
  depth: number;
}

/** A cell of `bits` (given as whole bytes, the last one's unused low bits zero) and references. */
function cellHash(data: Uint8Array, bits: number, refs: readonly CellHash[]): CellHash {
  const bytes = Math.ceil(bits / 8);
  const padded = Uint8Array.from(data.subarray(0, bytes));
  // An incomplete last byte ends with a one bit after the data (the completion tag).
  if (bits % 8 !== 0) padded[bytes - 1]! |= 1 << (7 - (bits % 8));
  const parts: number[] = [refs.length, Math.floor(bits / 8) + bytes, ...padded];
  for (const ref of refs) parts.push(ref.depth >> 8, ref.depth & 0xff);
  for (const ref of refs) parts.push(...ref.hash);
  const depth = refs.length === 0 ? 0 : 1 + Math.max(...refs.map((ref) => ref.depth));
  return { hash: sha256(Uint8Array.from(parts)), depth };
}

/** V5R1's wallet id on a network (workchain 0, subwallet 0), as the contract stores it (unsigned 32 bits). */
export function v5r1WalletId(network: Network): number {
  return ((TON_GLOBAL_ID[network] ^ CLIENT_CONTEXT) >>> 0) as number;
}

/**
 * The data cell: signatures allowed (1 bit), seqno 0 (32), wallet id (32), the public key (256) and an
 * empty extensions dictionary (1 bit): 322 bits.
 */
function dataCell(publicKey: Uint8Array, network: Network): CellHash {
  const bytes = new Uint8Array(41);
  const walletId = v5r1WalletId(network);
  // Bit 0: 1. Bits 1-32: seqno 0. Bits 33-64: wallet id. Bits 65-320: key. Bit 321: 0.
  const bits: number[] = [1, ...new Array<number>(32).fill(0)];
  for (let i = 31; i >= 0; i--) bits.push((walletId >>> i) & 1);
  for (const byte of publicKey) for (let i = 7; i >= 0; i--) bits.push((byte >> i) & 1);
  bits.push(0);
  bits.forEach((bit, i) => {
    if (bit === 1) bytes[i >> 3]! |= 0x80 >> (i & 7);
  });
  return cellHash(bytes, bits.length, []);
}

/** The basechain address of the V5R1 wallet of `publicKey` (32 bytes) on `network`. */
export function v5r1Address(publicKey: Uint8Array, network: Network): TonAddress {
  if (publicKey.length !== 32) throw new Error('an ed25519 public key is 32 bytes');
  // StateInit: no split depth (0), not special (0), code present (1), data present (1), no library (0).
  const stateInit = cellHash(Uint8Array.of(0b0011_0000), 5, [V5R1_CODE, dataCell(publicKey, network)]);
  return { workchain: 0, hash: Buffer.from(stateInit.hash).toString('hex') };
}
