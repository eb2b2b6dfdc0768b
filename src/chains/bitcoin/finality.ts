import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

/**
 * finalityDepth 6: the customary six confirmations, past which an accidental mainnet reorg is
 * practically unheard of (the deep ones on record came from consensus bugs, not from mining luck).
 *
 * mainnet reorgDepth 10, not 6: the watcher keeps that many block hashes and unwinds that deep, so it
 * must reach past finality with a margin; the margin costs a few rows.
 *
 * testnet reorgDepth 100: testnet3's 20-minute rule lets anyone mine minimum-difficulty blocks, so block
 * storms and reorgs of dozens of blocks follow difficulty resets, and testnet4 (BIP 94) keeps the
 * 20-minute rule; signet and regtest sit well inside the same bound.
 */
export const BITCOIN_FINALITY: Record<Network, Finality> = {
  mainnet: { finalityDepth: 6, reorgDepth: 10 },
  testnet: { finalityDepth: 6, reorgDepth: 100 },
};

/**
 * Proof of work aims at a block every 600 s on every Bitcoin network (regtest mines when told): blocks
 * come at random around that, so the watcher's pace keeps reading before the due time too.
 */
export const BITCOIN_BLOCK_TIME_MS = 600_000;
