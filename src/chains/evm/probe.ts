import type { NodeClient } from '../node-client.ts';
import type { HeadProbe } from '../types.ts';
import { quantity } from './fees.ts';
import { EvmRpc } from './rpc.ts';

/** The node monitor's question to one EVM endpoint: `eth_blockNumber`. */
export function evmHeadProbe(client: NodeClient): HeadProbe {
  const rpc = new EvmRpc(client);
  return async () => quantity(await rpc.request('eth_blockNumber'), 'eth_blockNumber');
}
