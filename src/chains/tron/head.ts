import { NodeHttpError } from '../node-client.ts';
import { TronInvalidResponseError } from './errors.ts';
import type { NodeJson, TronNodeApi } from './node-api.ts';
import { int } from './resources.ts';

/**
 * Reads a Tron node's head block number: from `getblock` (header only, far smaller than `getnowblock` on a
 * busy chain), falling back to `getnowblock` for good once a node proves too old for it (java-tron < 4.7).
 */
export class TronHeadReader {
  #noHeaderOnlyBlocks = false;

  constructor(private readonly node: TronNodeApi) {}

  async read(solidity: boolean): Promise<bigint> {
    if (!this.#noHeaderOnlyBlocks) {
      try {
        const header = await this.node.getBlockHeader(solidity);
        if (typeof header['Error'] !== 'string') return blockNumberOf(header);
      } catch (error) {
        if (!(error instanceof NodeHttpError && (error.status === 404 || error.status === 405))) throw error;
      }
      this.#noHeaderOnlyBlocks = true;
    }
    return blockNumberOf(await this.node.getNowBlock(solidity));
  }
}

export function blockNumberOf(block: NodeJson): bigint {
  const header = block['block_header'] as { raw_data?: { number?: unknown } } | undefined;
  if (typeof block['blockID'] !== 'string' || !header?.raw_data) {
    throw new TronInvalidResponseError('Tron node sent a block without a header');
  }
  // Block 0 prints no number: proto3 omits defaults.
  return int(header.raw_data.number);
}
