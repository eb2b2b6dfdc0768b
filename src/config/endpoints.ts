import { CHAIN_NAMES, type ChainName, NETWORKS, type Network } from '../chains/types.ts';
import { ConfigError } from './error.ts';
import type { Env } from './setting.ts';
import { httpUrl, list, redactUrl } from './setting.ts';

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

/** One WebSocket endpoint per chain and network, where one is set. */
export type WsEndpointsConfig = Partial<Record<ChainName, Partial<Record<Network, string>>>>;

/** The variable naming a chain and network's WebSocket endpoint, e.g. ETHEREUM_MAINNET_WS_URL. */
export function wsEndpointVariable(chain: ChainName, network: Network): string {
  return `${chain.toUpperCase()}_${network.toUpperCase()}_WS_URL`;
}

/**
 * `<CHAIN>_<NETWORK>_WS_URL` is one `ws://` or `wss://` URL. Which chains can use one is their family's
 * to say (`ChainFamily.headSubscription`); the context refuses it for the others.
 */
export function readWsEndpoints(env: Env): WsEndpointsConfig {
  const out: WsEndpointsConfig = {};
  for (const chain of CHAIN_NAMES) {
    for (const network of NETWORKS) {
      const name = wsEndpointVariable(chain, network);
      const raw = env[name]?.trim();
      if (raw === undefined || raw === '') continue;
      if (!isWsUrl(raw)) throw new ConfigError(name, `"${redactUrl(raw)}" is not a ws(s) URL`);
      out[chain] = { ...out[chain], [network]: raw };
    }
  }
  return out;
}

function isWsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'ws:' || url.protocol === 'wss:';
  } catch {
    return false;
  }
}
