import type { BlockFollower } from './follower.ts';

/** The networks every chain runs on; selected per request by the `X-Network` header. */
export const NETWORKS = ['mainnet', 'testnet'] as const;
export type Network = (typeof NETWORKS)[number];

/** Chains the API knows by name (path segment `/api/v2/{chain}/...`). */
export const CHAIN_NAMES = ['tron', 'ethereum', 'bsc', 'polygon', 'arbitrum', 'solana', 'bitcoin'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

export function isChainName(value: string): value is ChainName {
  return (CHAIN_NAMES as readonly string[]).includes(value);
}

/** Asks one node endpoint for its head block number: the node monitor's probe, one per family. */
export type HeadProbe = () => Promise<bigint>;

/** A freshly generated or imported key pair, in the chain's own encodings. */
export interface ChainKeyPair {
  address: string;
  publicKey: string;
  /** Hex private key; only ever leaves the process for an unsecure wallet or an export. */
  privateKey: string;
}

/** One transfer found in a block, normalized across chains (consumed by the webhook watchers). */
export interface TransferEvent {
  chain: ChainName;
  network: Network;
  blockNumber: bigint;
  blockHash: string;
  txid: string;
  /** Position of the transfer inside its transaction (log index, instruction index, output index). */
  logIndex: number;
  from: string | null;
  to: string | null;
  contractAddress: string | null;
  tokenId: string | null;
  /** Chain-specific transfer type as the webhooks API names it: TRX, TRC20, ERC20, SPL, BTC ... */
  type: string;
  /** Amount in base units (sun, wei, lamports, satoshis, token units). */
  amountRaw: bigint;
  decimals: number;
  /** Block time. */
  time: Date;
}

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
