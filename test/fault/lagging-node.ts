/**
 * How a node that lags `blocks` behind its upstream answers: its head is lower, it knows no block,
 * receipt or transaction above that head, and `latest` (with `pending`, `safe`, `finalized`) means its own
 * head. Calls it has no reason to answer otherwise go to the upstream as they are.
 */
import { hexQuantity, type JsonRpcAnswer, type JsonRpcCall, quantityOf } from './json-rpc-message.ts';

/** One call to the upstream node, answered as it answers. */
export type UpstreamCall = (method: string, params: unknown[]) => Promise<JsonRpcAnswer>;

/** Methods reading one block by height, with where the height is; a block above the head reads as null. */
const BLOCK_READS: Readonly<Record<string, number>> = {
  eth_getBlockByNumber: 0,
  eth_getBlockReceipts: 0,
  eth_getBlockTransactionCountByNumber: 0,
};

/** Methods reading state at a block, with where the block is; above the head the node has no state. */
const STATE_READS: Readonly<Record<string, number>> = {
  eth_getBalance: 1,
  eth_call: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
};

/** Methods whose answer names its block: null when that block is above the head. */
const LOOKUPS_BY_HASH = new Set([
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
]);

const HEAD_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);

export async function answerBehind(
  call: JsonRpcCall,
  blocks: number,
  upstream: UpstreamCall,
): Promise<JsonRpcAnswer> {
  const reply = (result: unknown): JsonRpcAnswer => ({ jsonrpc: '2.0', id: call.id, result });
  const upstreamHead = quantityOf((await upstream('eth_blockNumber', [])).result);
  if (upstreamHead === null) throw new Error('the upstream sent no head');
  const head = upstreamHead > BigInt(blocks) ? upstreamHead - BigInt(blocks) : 0n;
  if (call.method === 'eth_blockNumber') return reply(hexQuantity(head));

  const params = [...call.params];
  const blockAt = BLOCK_READS[call.method] ?? STATE_READS[call.method];
  if (blockAt !== undefined) {
    const tag = params[blockAt];
    const height = quantityOf(tag);
    if (height !== null && height > head) {
      if (call.method in BLOCK_READS) return reply(null);
      return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'header not found' } };
    }
    if (tag === undefined || (typeof tag === 'string' && HEAD_TAGS.has(tag)))
      params[blockAt] = hexQuantity(head);
  }
  const answer = { ...(await upstream(call.method, params)), id: call.id };
  if (LOOKUPS_BY_HASH.has(call.method)) {
    const number = blockNumberOf(answer.result);
    if (number !== null && number > head) return reply(null);
  }
  return answer;
}

/** The block a block, transaction or receipt object names (`number`, `blockNumber`); null for none. */
function blockNumberOf(result: unknown): bigint | null {
  if (result === null || typeof result !== 'object') return null;
  const fields = result as { number?: unknown; blockNumber?: unknown };
  return quantityOf(fields.blockNumber ?? fields.number);
}
