/**
 * The block follower contract: how the webhook watcher reads a chain, height by height, whatever the
 * family. Heights are the family's own numbering (block numbers; slots where a chain can skip one), and a
 * block names its parent by height and hash, since on a chain that skips heights the parent of height n
 * is not always n - 1.
 */
import type { Logger } from '../logger.ts';
import type { TransferEvent } from './types.ts';

/** The block a block builds on. */
export interface BlockParent {
  number: bigint;
  hash: string;
}

/** One block as the watcher needs it: its place in the chain and every successful transfer in it. */
export interface FollowedBlock {
  number: bigint;
  hash: string;
  parent: BlockParent;
  time: Date;
  /** Normalized, with addresses in the form webhooks compare (webhooks/chain-rules.ts). */
  transfers: TransferEvent[];
}

/**
 * What the node has at one height: a block; `skipped`, a height that will never hold a block (the next
 * block's parent lies further back); or `not-yet`, a height the node has not reached.
 */
export type HeightReading =
  | { kind: 'block'; block: FollowedBlock }
  | { kind: 'skipped' }
  | { kind: 'not-yet' };

/** How deep a block must be before it stays, as the family declares it for one network. */
export interface Finality {
  /** Blocks built on top of a block after which it can no longer leave the chain. */
  finalityDepth: number;
  /** How far back a reorg can reach: how many block hashes the watcher keeps and how deep it unwinds. */
  reorgDepth: number;
}

/** A family's follower for one chain and network. */
export interface BlockFollower {
  readonly finality: Finality;
  /** The highest height the node has. */
  head(): Promise<bigint>;
  read(height: bigint): Promise<HeightReading>;
  /**
   * Transfers to or from `addresses` the node holds unconfirmed (its mempool), for subscriptions that
   * ask for `pending`; absent on chains without a mempool. Their `blockNumber` is 0 and `blockHash` ''.
   */
  unconfirmed?(addresses: readonly string[]): Promise<TransferEvent[]>;
  /**
   * The chain's target time between blocks (ms), where it has one. A watcher whose node announces no
   * blocks reads the head when the next is due and then in short growing steps, instead of at a fixed pace.
   */
  readonly blockTimeMs?: number;
  /** New blocks as the node announces them; absent where the node offers no subscription (or none is set). */
  readonly heads?: HeadNotifier;
}

/**
 * A node's announcements of new blocks (a WebSocket subscription), so that the watcher reads a block when
 * it comes instead of at its next poll. Polling goes on beside it: a lost subscription only costs speed.
 */
export interface HeadNotifier {
  /**
   * Starts listening. `onHead` is called for each block the node announces, with its height when the
   * announcement carries one the follower's `head()` reaches too (null otherwise), and once each time the
   * subscription is (re)made, since blocks may have come while it was down. It reconnects by itself and
   * never throws; `stop()` ends it.
   */
  listen(onHead: (height: bigint | null) => void, logger: Logger): HeadListening;
}

export interface HeadListening {
  stop(): Promise<void>;
}
