import type { NetworkProbe } from '../network-probe.ts';
import type { NodeClient } from '../node-client.ts';
import type { HeadProbe, Network } from '../types.ts';
import { SolanaRpc, SolanaRpcError } from './rpc.ts';

/**
 * The genesis hash of each cluster: what tells one from another (they share every method and version).
 * The gateway's testnet is Solana's devnet by default; its testnet cluster is accepted there too.
 */
export const SOLANA_GENESIS: Record<Network, Record<string, string>> = {
  mainnet: { '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': 'mainnet-beta' },
  testnet: {
    EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: 'devnet',
    '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY': 'testnet',
  },
};

const CLUSTER_NAMES: Record<string, string> = Object.assign({}, ...Object.values(SOLANA_GENESIS));

/**
 * The node monitor's question to one endpoint: its confirmed slot. Asked as plain JSON-RPC, as is the
 * genesis hash below, so that watching the nodes' health loads no @solana/kit.
 */
export function solanaHeadProbe(client: NodeClient): HeadProbe {
  const rpc = new SolanaRpc(client);
  return async () => {
    const slot = await rpc.raw('getSlot', [{ commitment: 'confirmed' }]);
    if ((typeof slot !== 'number' || !Number.isSafeInteger(slot)) && typeof slot !== 'bigint') {
      throw new SolanaRpcError(client, 'getSlot', -32603, 'the node answered no slot', slot);
    }
    return BigInt(slot);
  };
}

/** Which cluster one endpoint serves, by its genesis hash. */
export const solanaNetworkProbe: NetworkProbe = async (client, network) => {
  const found = String(await new SolanaRpc(client).raw('getGenesisHash'));
  const expected = SOLANA_GENESIS[network];
  return {
    expected: Object.values(expected).join(' or '),
    found: CLUSTER_NAMES[found] ?? `genesis hash ${found}`,
    matches: expected[found] !== undefined,
  };
};
