/** What the registry and the node monitor need of one served chain of a family. */
import type { Env } from '../config/setting.ts';
import type { NodeEndpointConfig } from '../config.ts';
import type { AdapterFactory } from './adapter-context.ts';
import type { NetworkProbe } from './network-probe.ts';
import type { NodeClient } from './node-client.ts';
import type { HeadProbe, Network } from './types.ts';

/** What the registry and the node monitor need of one served chain. */
export interface ChainFamily {
  factory: AdapterFactory;
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  /** The head probe of one endpoint, over a client of that endpoint alone; `settings` are the families' own. */
  probe: (client: NodeClient, network: Network, settings: Env) => HeadProbe;
  /** Which chain and network one endpoint serves (checked at start; one on another is disabled). */
  identify: NetworkProbe;
  /** Headers sent to every endpoint of the chain, from the family's settings (Tron: TronGrid's API key). */
  endpointHeaders?: (settings: Env) => Record<string, string>;
  /**
   * The chain's nodes announce new blocks over a WebSocket, which the adapter's follower subscribes to when
   * `<CHAIN>_<NETWORK>_WS_URL` is set (`BlockFollower.heads`); a chain without it only polls, and refuses
   * the setting.
   */
  headSubscription?: true;
}
