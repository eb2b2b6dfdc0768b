import type { NetworkIdentity, NetworkProbe } from '../network-probe.ts';
import type { NodeClient } from '../node-client.ts';
import type { ChainName, HeadProbe } from '../types.ts';
import { evmChain } from './chains.ts';
import { quantity } from './fees.ts';
import { EvmRpc } from './rpc.ts';

/** The node monitor's question to one EVM endpoint: `eth_blockNumber`. */
export function evmHeadProbe(client: NodeClient): HeadProbe {
  const rpc = new EvmRpc(client);
  return async () => quantity(await rpc.request('eth_blockNumber'), 'eth_blockNumber');
}

/** The chain id an EVM node reports (`eth_chainId`). */
export async function nodeChainId(rpc: EvmRpc): Promise<number> {
  return Number(quantity(await rpc.request('eth_chainId'), 'eth_chainId'));
}

/** What an EVM node says of its chain, with the chain id it reported. */
export interface EvmChainIdentity extends NetworkIdentity {
  foundChainId: number;
}

/**
 * Whether the node behind `rpc` serves chain id `expected`: the one comparison, asked of every endpoint
 * at start (evmNetworkProbe) and by an adapter's own node check.
 */
export async function identifyEvmChain(rpc: EvmRpc, expected: number): Promise<EvmChainIdentity> {
  const found = await nodeChainId(rpc);
  return {
    expected: `chain id ${expected}`,
    found: `chain id ${found}`,
    matches: found === expected,
    foundChainId: found,
  };
}

/** Which chain one EVM endpoint serves: its `eth_chainId` against the chain's id on that network. */
export function evmNetworkProbe(chain: ChainName): NetworkProbe {
  return (client, network) => identifyEvmChain(new EvmRpc(client), evmChain(chain).networks[network].chainId);
}
