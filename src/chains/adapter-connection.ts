import type { NodeEndpointConfig } from '../config.ts';
import { NodeClient } from './node-client.ts';
import type { Network } from './types.ts';

/** What a family's adapter is told of its nodes: the network, their endpoints and how to call them. */
export interface AdapterConnection {
  network: Network;
  endpoints: NodeEndpointConfig[];
  timeoutMs?: number;
  retries?: number;
  /** Told of every failed attempt, by endpoint host (node metrics count them). */
  onAttemptFailed?: (endpoint: string) => void;
}

/** Only the connection's own fields of a wider object (an adapter's options, the registry's context). */
export function connectionOf(source: AdapterConnection): AdapterConnection {
  return {
    network: source.network,
    endpoints: source.endpoints,
    timeoutMs: source.timeoutMs,
    retries: source.retries,
    onAttemptFailed: source.onAttemptFailed,
  };
}

/** The node client an adapter of `chain` reads and sends through. */
export function adapterNodeClient(chain: string, connection: AdapterConnection): NodeClient {
  return new NodeClient({ chain, ...connectionOf(connection) });
}
