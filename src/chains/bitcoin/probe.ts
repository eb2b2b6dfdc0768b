import type { Env } from '../../config/setting.ts';
import type { NetworkProbe } from '../network-probe.ts';
import type { NodeClient } from '../node-client.ts';
import type { HeadProbe, Network } from '../types.ts';
import { bitcoinBackendFor } from './adapter.ts';
import { BITCOIN_NETWORKS, bitcoinNetworkOf } from './networks.ts';

/** The network named by each genesis hash (testnet3's and testnet4's differ; signet's is the default signet's). */
const NETWORK_BY_GENESIS: ReadonlyMap<string, string> = new Map(
  Object.values(BITCOIN_NETWORKS).map((network) => [network.genesisHash, network.name]),
);

/** The node monitor's question to one endpoint: its tip height. */
export function bitcoinHeadProbe(client: NodeClient, network: Network, settings: Env): HeadProbe {
  const backend = bitcoinBackendFor(client, network, settings);
  return async () => BigInt(await backend.tipHeight());
}

/** Which Bitcoin network one endpoint serves, by the hash of its block 0. */
export const bitcoinNetworkProbe: NetworkProbe = async (client, network, settings) => {
  const expected = bitcoinNetworkOf(network, settings);
  const genesis = await bitcoinBackendFor(client, network, settings).blockHash(0);
  if (genesis === null) return { expected: expected.name, found: null, matches: false };
  return {
    expected: expected.name,
    found: NETWORK_BY_GENESIS.get(genesis) ?? `genesis hash ${genesis}`,
    matches: genesis === expected.genesisHash,
  };
};
