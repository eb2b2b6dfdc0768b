import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

/**
 * finalityDepth 6: the customary six confirmations, past which no accidental reorg has been seen on
 * mainnet in a decade; the deepest ones (the 2013 fork, 24 blocks) came from a software split.
 *
 * mainnet reorgDepth 10, not 6: the watcher keeps that many block hashes and unwinds that deep, so it
 * must reach past finality with a margin (stale blocks two deep occur every year or so; a margin costs
 * ten rows).
 *
 * testnet reorgDepth 100: testnet3's 20-minute rule lets anyone mine minimum-difficulty blocks, and
 * testnet4 keeps a (narrower) form of it, so block storms and reorgs of dozens of blocks happen when
 * difficulty resets; signet and regtest sit well inside the same bound.
 */
export const BITCOIN_FINALITY: Record<Network, Finality> = {
  mainnet: { finalityDepth: 6, reorgDepth: 10 },
  testnet: { finalityDepth: 6, reorgDepth: 100 },
};
