// Blocks: BlockHeader.raw encoding, block id, tx merkle root, witness signature and java-tron's JSON.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { type HexAddress, hexAddressToBase58 } from './address.ts';
import type { Json } from './json.ts';
import { ProtoWriter } from './protobuf.ts';
import { signHash } from './signature.ts';
import { encodeTransaction, type Transaction } from './transaction.ts';
import { printTransaction } from './transaction-json.ts';

export interface BlockHeaderRaw {
  timestamp: bigint;
  txTrieRoot: Uint8Array;
  parentHash: Uint8Array;
  number: bigint;
  witnessAddress: HexAddress;
  version: number;
}

export interface Block {
  header: BlockHeaderRaw;
  witnessSignature: Uint8Array;
  transactions: Transaction[];
  /** 64-hex block id, cached. */
  id: string;
}

export function encodeHeaderRaw(raw: BlockHeaderRaw): Uint8Array {
  return new ProtoWriter()
    .int(1, raw.timestamp)
    .bytes(2, raw.txTrieRoot)
    .bytes(3, raw.parentHash)
    .int(7, raw.number)
    .bytes(9, hexToBytes(raw.witnessAddress))
    .int(10, raw.version)
    .finish();
}

/** BlockCapsule.BlockId: 8-byte big-endian number || sha256(header raw)[8:32]. */
export function blockIdOf(raw: BlockHeaderRaw): string {
  const hash = sha256(encodeHeaderRaw(raw));
  const num = raw.number.toString(16).padStart(16, '0');
  return num + bytesToHex(hash.subarray(8));
}

/** BlockCapsule.calcMerkleRoot: sha256 of each full transaction, pairwise, odd leaf carried up. */
export function txTrieRoot(transactions: Transaction[]): Uint8Array {
  if (transactions.length === 0) return new Uint8Array(32);
  let level: Uint8Array[] = transactions.map((tx) => sha256(encodeTransaction(tx)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      const right = level[i + 1];
      next.push(right ? sha256(concatBytes(left, right)) : left);
    }
    level = next;
  }
  return level[0] as Uint8Array;
}

export function sealBlock(
  header: Omit<BlockHeaderRaw, 'txTrieRoot'>,
  transactions: Transaction[],
  witnessKey: Uint8Array,
): Block {
  const raw: BlockHeaderRaw = { ...header, txTrieRoot: txTrieRoot(transactions) };
  const witnessSignature = signHash(sha256(encodeHeaderRaw(raw)), witnessKey);
  return { header: raw, witnessSignature, transactions, id: blockIdOf(raw) };
}

export function printBlock(block: Block, visible: boolean, withTransactions = true): Record<string, Json> {
  const h = block.header;
  const raw: Record<string, Json> = {};
  if (h.number) raw['number'] = h.number;
  raw['txTrieRoot'] = bytesToHex(h.txTrieRoot);
  raw['witness_address'] = visible ? hexAddressToBase58(h.witnessAddress) : h.witnessAddress;
  if (h.parentHash.length) raw['parentHash'] = bytesToHex(h.parentHash);
  if (h.version) raw['version'] = h.version;
  if (h.timestamp) raw['timestamp'] = h.timestamp;
  const out: Record<string, Json> = {
    blockID: block.id,
    block_header: { raw_data: raw, witness_signature: bytesToHex(block.witnessSignature) },
  };
  if (withTransactions && block.transactions.length > 0) {
    out['transactions'] = block.transactions.map((tx) => printTransaction(tx, visible));
  }
  return out;
}
