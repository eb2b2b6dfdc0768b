import type { NetworkProbe } from '../network-probe.ts';
import type { NodeClient } from '../node-client.ts';
import type { HeadProbe, Network } from '../types.ts';
import { TronHeadReader } from './head.ts';
import { TronNodeApi } from './node-api.ts';

/** The node monitor's question to one Tron endpoint: its head block number, as the adapter reads it. */
export function tronHeadProbe(client: NodeClient): HeadProbe {
  const head = new TronHeadReader(new TronNodeApi(client));
  return () => head.read(false);
}

/**
 * java-tron's network id (node.p2p.version, in getnodeinfo's configNodeInfo): nodes connect only to peers
 * with the same one, so it names the network a node follows. Testnet is Nile, or Shasta.
 */
export const TRON_NETWORK_IDS: Record<Network, readonly { id: number; name: string }[]> = {
  mainnet: [{ id: 11111, name: 'mainnet' }],
  testnet: [
    { id: 201910292, name: 'Nile' },
    { id: 1, name: 'Shasta' },
  ],
};

/** Which network one Tron endpoint serves, by the network id its getnodeinfo reports. */
export const tronNetworkProbe: NetworkProbe = async (client, network) => {
  const info = await new TronNodeApi(client).getNodeInfo();
  const config = info['configNodeInfo'];
  const raw = typeof config === 'object' && config !== null ? Reflect.get(config, 'p2pVersion') : undefined;
  const id = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
  const accepted = TRON_NETWORK_IDS[network];
  const expected = `network id ${accepted.map((n) => `${n.id} (${n.name})`).join(' or ')}`;
  if (!Number.isSafeInteger(id)) return { expected, found: null, matches: false };
  const known = Object.values(TRON_NETWORK_IDS)
    .flat()
    .find((n) => n.id === id);
  return {
    expected,
    found: `network id ${id}${known === undefined ? '' : ` (${known.name})`}`,
    matches: accepted.some((n) => n.id === id),
  };
};
