import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

/**
 * A Tron block is solidified, and never reverted, once 19 of the 27 super representatives (2/3 + 1) have
 * built on it; so no reorg reaches deeper than that, on mainnet and the testnets alike.
 */
export const TRON_FINALITY: Record<Network, Finality> = {
  mainnet: { finalityDepth: 19, reorgDepth: 19 },
  testnet: { finalityDepth: 19, reorgDepth: 19 },
};

/** A block every 3 s: each super representative's slot, on mainnet and the testnets alike. */
export const TRON_BLOCK_TIME_MS = 3_000;
