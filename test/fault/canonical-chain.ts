/** The chain's truth, read straight from a node (not through the proxy): which block holds what. */
import type { Hex } from 'viem';

export interface CanonicalChain {
  /** Block hash by height, lower case. */
  hashes: Map<bigint, string>;
  /** Height of the block holding each transaction, by lower-case hash. */
  blockOf: Map<string, bigint>;
}

/** Blocks `from` to `to` of the node's canonical chain, checked to link up by their parent hashes. */
export async function readCanonicalChain(
  rpc: <T>(method: string, params?: unknown[]) => Promise<T>,
  from: bigint,
  to: bigint,
): Promise<CanonicalChain> {
  const hashes = new Map<bigint, string>();
  const blockOf = new Map<string, bigint>();
  let parent: string | null = null;
  for (let height = from; height <= to; height++) {
    const block = await rpc<{ hash: Hex; parentHash: Hex; transactions: Hex[] } | null>(
      'eth_getBlockByNumber',
      [`0x${height.toString(16)}`, false],
    );
    if (block === null) throw new Error(`the node has no block ${height}`);
    if (parent !== null && block.parentHash.toLowerCase() !== parent) {
      throw new Error(`block ${height} does not build on block ${height - 1n}`);
    }
    parent = block.hash.toLowerCase();
    hashes.set(height, parent);
    for (const txid of block.transactions) blockOf.set(txid.toLowerCase(), height);
  }
  return { hashes, blockOf };
}
