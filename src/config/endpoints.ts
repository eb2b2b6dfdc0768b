import { CHAIN_NAMES, type ChainName, NETWORKS, type Network } from '../chains/types.ts';
import type { Env } from './setting.ts';
import { httpUrl, list } from './setting.ts';

export interface NodeEndpointConfig {
  url: string;
  headers: Record<string, string>;
}

export type EndpointsConfig = Partial<Record<ChainName, Partial<Record<Network, NodeEndpointConfig[]>>>>;

/** The variable naming a chain and network's nodes, e.g. TRON_TESTNET_URLS. */
export function endpointsVariable(chain: ChainName, network: Network): string {
  return `${chain.toUpperCase()}_${network.toUpperCase()}_URLS`;
}

/**
 * `<CHAIN>_<NETWORK>_URLS` is a comma-separated list of node URLs (e.g. TRON_TESTNET_URLS). Headers a
 * family sends to every endpoint (Tron's API key) are added where the endpoints are used (registry.ts).
 */
export function readEndpoints(env: Env): EndpointsConfig {
  const out: EndpointsConfig = {};
  for (const chain of CHAIN_NAMES) {
    for (const network of NETWORKS) {
      const name = endpointsVariable(chain, network);
      const raw = env[name];
      if (raw === undefined) continue;
      const urls = list(raw).map((url) => httpUrl(url, name));
      out[chain] = { ...out[chain], [network]: urls.map((url) => ({ url, headers: {} })) };
    }
  }
  return out;
}
