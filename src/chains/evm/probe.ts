import type { NetworkProbe } from '../network-check.ts';
import type { NodeClient } from '../node-client.ts';
import type { HeadProbe } from '../types.ts';
import { EVM_CHAINS, type EvmChainName } from './chains.ts';
import { quantity } from './fees.ts';
import { EvmRpc } from './rpc.ts';

/** The node monitor's question to one EVM endpoint: `eth_blockNumber`. */
export function evmHeadProbe(client: NodeClient): HeadProbe {
  const rpc = new EvmRpc(client);
  return async () => quantity(await rpc.request('eth_blockNumber'), 'eth_blockNumber');
}

/** Which chain one EVM endpoint serves: its `eth_chainId` against the chain's id on that network. */
export function evmNetworkProbe(chain: EvmChainName): NetworkProbe {
  return async (client, network) => {
    const expected = EVM_CHAINS[chain].networks[network].chainId;
    const found = Number(quantity(await new EvmRpc(client).request('eth_chainId'), 'eth_chainId'));
    return { expected: `chain id ${expected}`, found: `chain id ${found}`, matches: found === expected };
  };
}
