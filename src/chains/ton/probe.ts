import type { NetworkProbe } from '../network-probe.ts';
import type { NodeClient } from '../node-client.ts';
import type { HeadProbe, Network } from '../types.ts';
import { Toncenter } from './toncenter.ts';
import { TON_GLOBAL_ID } from './wallet-v5r1.ts';

const NETWORK_NAMES: Record<number, string> = { [-239]: 'mainnet', [-3]: 'testnet' };

/** The node monitor's question to one endpoint: the newest masterchain seqno its indexer has. */
export function tonHeadProbe(client: NodeClient): HeadProbe {
  const toncenter = new Toncenter(client);
  return async () => BigInt((await toncenter.masterchainInfo()).last.seqno);
}

/** Which network one endpoint serves, by the global id its newest block carries (-239 mainnet, -3 testnet). */
export const tonNetworkProbe: NetworkProbe = async (client, network: Network) => {
  const found = (await new Toncenter(client).masterchainInfo()).last.globalId;
  const expected = TON_GLOBAL_ID[network];
  return {
    expected: `global id ${expected} (${network})`,
    found:
      NETWORK_NAMES[found] === undefined
        ? `global id ${found}`
        : `global id ${found} (${NETWORK_NAMES[found]})`,
    matches: found === expected,
  };
};
