import type { NodeEndpointConfig } from '../config.ts';
import { evmFamilies } from './evm/family.ts';
import type { NetworkProbe } from './network-check.ts';
import type { NodeClient } from './node-client.ts';
import type { AdapterFactory } from './registry.ts';
import { TRON_DEFAULT_ENDPOINTS, tronAdapterFactory } from './tron/adapter.ts';
import { tronHeadProbe, tronNetworkProbe } from './tron/probe.ts';
import { CHAIN_NAMES, type ChainName, type HeadProbe, type Network } from './types.ts';

/** A chain family this build can serve: how to build its adapter and where its public nodes are. */
export interface ChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  /** The head probe of one endpoint, over a client of that endpoint alone. */
  probe: (client: NodeClient) => HeadProbe;
  /** Which chain and network one endpoint serves (checked at start; one on another is disabled). */
  identify: NetworkProbe;
}

/** Every chain this build serves. A chain is added by writing its adapter and listing it here. */
export const CHAIN_FAMILIES: Partial<Record<ChainName, ChainFamily>> = {
  tron: {
    factory: tronAdapterFactory,
    defaults: TRON_DEFAULT_ENDPOINTS,
    probe: tronHeadProbe,
    identify: tronNetworkProbe,
  },
  ...evmFamilies,
};

/** The chains this build serves, in the API's order: what the OpenAPI lists wherever a chain is named. */
export const SERVED_CHAINS: ChainName[] = CHAIN_NAMES.filter((chain) => CHAIN_FAMILIES[chain] !== undefined);

export function isServedChain(value: string): value is ChainName {
  return (SERVED_CHAINS as string[]).includes(value);
}
