/** What a family's adapter factory is given to build the adapter of one chain on one network. */
import type { Env } from '../config/setting.ts';
import type { NodeEndpointConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import type { ChainName, Network } from './types.ts';

/** What a chain family needs to build the adapter of one chain on one network. */
export interface AdapterContext {
  chain: ChainName;
  network: Network;
  endpoints: NodeEndpointConfig[];
  /**
   * The node's WebSocket endpoint (`<CHAIN>_<NETWORK>_WS_URL`), for a family whose follower can hear of
   * new blocks by subscription (`ChainFamily.headSubscription`).
   */
  wsUrl?: string;
  timeoutMs: number;
  retries: number;
  logger: Logger;
  /** The families' own settings, as text (Bitcoin: what kind of backend the endpoints are). */
  settings: Env;
  /** Told of every failed node call attempt, by endpoint host. */
  onAttemptFailed?: (endpoint: string) => void;
}

/** Told of every failed node call attempt of any chain (node metrics count them). */
export type NodeAttemptObserver = (chain: ChainName, network: Network, endpoint: string) => void;

/** Builds an adapter; returns null when the chain has no endpoints for that network. */
export type AdapterFactory = (context: AdapterContext) => ChainAdapter | null;
