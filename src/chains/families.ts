import type { NodeEndpointConfig } from '../config.ts';
import { evmFamilies } from './evm/family.ts';
import type { AdapterFactory } from './registry.ts';
import { TRON_DEFAULT_ENDPOINTS, tronAdapterFactory } from './tron/adapter.ts';
import type { ChainName, Network } from './types.ts';

/** A chain family this build can serve: how to build its adapter and where its public nodes are. */
export interface ChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
}

/** Every chain this build serves. A chain is added by writing its adapter and listing it here. */
export const CHAIN_FAMILIES: Partial<Record<ChainName, ChainFamily>> = {
  tron: { factory: tronAdapterFactory, defaults: TRON_DEFAULT_ENDPOINTS },
  ...evmFamilies,
};
