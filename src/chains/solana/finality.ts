import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

/**
 * finalityDepth 32: a block is rooted ("finalized") once validators have voted on 31 blocks built on it
 * (Tower BFT's maximum lockout), which puts the finalized slot about 32 slots behind the confirmed tip.
 *
 * reorgDepth 150, not 32: the watcher measures it in heights, and Solana's heights are slots, skipped
 * ones included, so 32 blocks often span more than 32 slots, and when leaders miss slots in a row or
 * votes stall the root falls much further behind the confirmed tip. 150 slots (about a minute; also
 * MAX_PROCESSING_AGE, the blockhash window) leaves that margin. What it costs the watcher is at most 150
 * kept block hashes per network (one row per non-skipped slot) and a parent walk over as many when a
 * reorg is seen: far less than Polygon's 256 blocks.
 */
export const SOLANA_FINALITY: Record<Network, Finality> = {
  mainnet: { finalityDepth: 32, reorgDepth: 150 },
  testnet: { finalityDepth: 32, reorgDepth: 150 },
};
