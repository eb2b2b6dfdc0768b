/** One chain on one network, as the registry serves it: the node behind it and the chain's follower. */
import type { BlockFollower } from './follower.ts';
import type { ChainName, Network } from './types.ts';

/**
 * What every chain adapter offers, whatever its family. Family adapters (Tron, EVM, Solana, Bitcoin)
 * extend it with their own operations; routes of a family use the family type from the registry.
 */
export interface ChainAdapter {
  readonly chain: ChainName;
  readonly network: Network;
  readonly nativeSymbol: string;
  readonly nativeDecimals: number;
  /** True when `address` is a well-formed address of this chain (any accepted encoding). */
  isAddress(address: string): boolean;
  /** Current head block number. */
  getBlockNumber(): Promise<bigint>;
  /** Reads the chain height by height for the webhook watcher; chains without one have no watcher. */
  readonly follower?: BlockFollower;
  /**
   * Stops using one node endpoint (named as `endpointLabels` names it): it serves another chain or
   * network. Returns how many endpoints are left in use.
   */
  disableEndpoint?(endpoint: string): number;
  /** Releases connections. */
  close(): Promise<void>;
}
