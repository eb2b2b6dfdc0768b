import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

/**
 * finalityDepth 0: a masterchain block is signed by two thirds of the validators before it exists, and
 * never leaves the chain; so a transfer is final in the block that holds it.
 *
 * reorgDepth 1: nothing is ever unwound, but the watcher keeps the last block's hash to check the next
 * one's parent against, which catches an endpoint of a pool that serves another chain's blocks.
 */
export const TON_FINALITY: Record<Network, Finality> = {
  mainnet: { finalityDepth: 0, reorgDepth: 1 },
  testnet: { finalityDepth: 0, reorgDepth: 1 },
};

/**
 * A masterchain block comes every few seconds (about 5 s for years, less since validators were sped up):
 * the watcher's pace reads at once after a block that came sooner than this, so a short guess costs
 * little.
 */
export const TON_BLOCK_TIME_MS = 3_000;
