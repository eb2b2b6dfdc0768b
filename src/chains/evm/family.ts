/** The four EVM chains as chain families: the shape `CHAIN_FAMILIES` entries take (src/chains/families.ts). */
import type { NodeEndpointConfig } from '../../config.ts';
import type { NetworkProbe } from '../network-check.ts';
import type { NodeClient } from '../node-client.ts';
import type { AdapterFactory } from '../registry.ts';
import type { HeadProbe, Network } from '../types.ts';
import { evmAdapterFactory } from './adapter.ts';
import { EVM_CHAIN_NAMES, type EvmChainName, evmDefaultEndpoints } from './chains.ts';
import { evmHeadProbe, evmNetworkProbe } from './probe.ts';

export interface EvmChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  probe: (client: NodeClient) => HeadProbe;
  identify: NetworkProbe;
}

export const evmFamilies: Record<EvmChainName, EvmChainFamily> = Object.fromEntries(
  EVM_CHAIN_NAMES.map((chain) => [
    chain,
    {
      factory: evmAdapterFactory(chain),
      defaults: evmDefaultEndpoints(chain),
      probe: evmHeadProbe,
      identify: evmNetworkProbe(chain),
    },
  ]),
) as Record<EvmChainName, EvmChainFamily>;
