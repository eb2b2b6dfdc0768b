import { type ChainName, NETWORKS, type Network } from '../chains/types.ts';
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
  for (const { chain, network, name, raw } of chainVariables(env, '_URLS')) {
    const urls = list(raw).map((url) => httpUrl(url, name));
    out[chain] = { ...out[chain], [network]: urls.map((url) => ({ url, headers: {} })) };
  }
  return out;
}

/**
 * The set variables named `<CHAIN>_<NETWORK><suffix>`, whatever the chain: the chains served are the
 * families' to say (an operator's EVM chain too), and a chain no family serves is not used.
 */
function chainVariables(env: Env, suffix: string) {
  const networks = NETWORKS.map((network) => network.toUpperCase()).join('|');
  const shape = new RegExp(`^([A-Z][A-Z0-9]*)_(${networks})${suffix}$`);
  return Object.entries(env).flatMap(([name, raw]) => {
    const [, chain, networkName] = shape.exec(name) ?? [];
    const network = NETWORKS.find((n) => n.toUpperCase() === networkName);
    if (chain === undefined || network === undefined || raw === undefined) return [];
    return [{ chain: chain.toLowerCase(), network, name, raw }];
  });
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
  for (const { chain, network, name, raw: text } of chainVariables(env, '_WS_URL')) {
    const raw = text.trim();
    if (raw === '') continue;
    if (!isWsUrl(raw)) throw new ConfigError(name, `"${redactUrl(raw)}" is not a ws(s) URL`);
    out[chain] = { ...out[chain], [network]: raw };
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
