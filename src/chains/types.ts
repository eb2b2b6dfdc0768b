/** The networks every chain runs on; selected per request by the `X-Network` header. */
export const NETWORKS = ['mainnet', 'testnet'] as const;
export type Network = (typeof NETWORKS)[number];

/** A network as a stored row names it (the store only ever writes one of NETWORKS). */
export function networkNamed(text: string): Network {
  return text === 'testnet' ? 'testnet' : 'mainnet';
}

/**
 * A chain's name as the API knows it (path segment `/api/v2/{chain}/...`). The set is open: the served
 * chains are the families' (`servedChains()` in families.ts), the EVM ones read from data.
 */
export type ChainName = string;

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
  /**
   * The text its sender attached (TON's comment), which payments are told apart by; null when it has
   * none. Absent on chains whose transfers carry no such text.
   */
  comment?: string | null;
  /**
   * Why a transfer a block holds did not pay its receiver (TON: the receiver bounced it back); absent when
   * it paid. Such a transfer is notified as event `failed`, never as `transfer`.
   */
  failed?: string;
}
