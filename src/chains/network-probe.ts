/** How one node endpoint is asked which chain and network it serves (chains/network-check.ts asks). */
import type { Env } from '../config/setting.ts';
import type { NodeClient } from './node-client.ts';
import type { Network } from './types.ts';

/** What one endpoint says of the network it serves, beside what this gateway expects there. */
export interface NetworkIdentity {
  /** As a reader would say it, e.g. `chain id 1`. */
  expected: string;
  /** What the node reported, in the same words; null when it does not tell. */
  found: string | null;
  matches: boolean;
}

/** Asks the one endpoint behind `client` which network it serves; `settings` are the families' own. */
export type NetworkProbe = (client: NodeClient, network: Network, settings: Env) => Promise<NetworkIdentity>;
