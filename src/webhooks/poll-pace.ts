/**
 * When a watcher whose node announces no blocks (Tron, Bitcoin) reads the node's head again: right when
 * the next block is due (the last block's time plus the chain's block time), then in short steps that
 * grow until it comes. Reading at a fixed pace instead either asks the node many times for nothing or
 * sees each block late.
 */

/** The watchers' pace before block times paced them: never slower than it once a block may be there. */
export const FIXED_POLL_MS = 500;
/** The first read after the due time comes this share of the block time later (Tron: 50 ms). */
const FIRST_STEP_SHARE = 1 / 60;
/** Not sooner than this however short the block time: a read and its answer take a few milliseconds. */
const SHORTEST_STEP_MS = 20;
/**
 * Before the due time the head is still read every third of a block time (at most every 5 s): a chain
 * that makes blocks sooner (blocks on demand, a miner's lucky streak) is noticed within that.
 */
const EARLY_SHARE = 1 / 3;
const LONGEST_EARLY_WAIT_MS = 5_000;

/**
 * Milliseconds until the next read of the head. `lastBlockTime` is the newest block's timestamp (ms;
 * taken as now when it lies ahead, so a fast clock on the chain's side cannot stall the watcher),
 * `misses` how many reads since the block was due found none newer, and `ahead` that the newest block
 * came before it was due: the chain runs faster than its block time, so the next may come any moment.
 */
export function nextPollDelay(
  lastBlockTime: number,
  now: number,
  blockTime: number,
  misses: number,
  ahead = false,
): number {
  const ceiling = Math.min(blockTime / 6, FIXED_POLL_MS);
  const due = Math.min(lastBlockTime, now) + blockTime;
  if (!ahead && now < due) {
    return Math.ceil(Math.min(due - now, blockTime * EARLY_SHARE, LONGEST_EARLY_WAIT_MS));
  }
  const firstStep = Math.min(Math.max(blockTime * FIRST_STEP_SHARE, SHORTEST_STEP_MS), ceiling);
  return Math.ceil(Math.min(firstStep * 2 ** Math.min(misses, 16), ceiling));
}

/** One watcher's pace: what it saw of the chain, and the delay that follows from it. */
export class PollPace {
  private lastBlockTime: number | null = null;
  /** When the next block is due, on this process's clock. */
  private due = 0;
  private misses = 0;
  private ahead = false;

  constructor(private readonly blockTime: number) {}

  /**
   * The newest block read is `time` (its timestamp), read `now`. The first one seen tells nothing of the
   * chain's pace yet: until the next, the reads are brisk.
   */
  blockSeen(time: number, now: number): void {
    this.ahead = this.lastBlockTime === null || now < this.due;
    // A timestamp ahead of this clock counts from now, once: the due time it gives stays put.
    this.lastBlockTime = Math.min(time, now);
    this.due = this.lastBlockTime + this.blockTime;
    this.misses = 0;
  }

  /** A read at `now` found no newer block; only those past the due time make the steps grow. */
  nothingNew(now: number): void {
    if (this.ahead || now >= this.due) this.misses++;
  }

  /** How long to wait from `now` before reading the head again. */
  delay(now: number): number {
    // Nothing seen yet (just started): the fixed pace, or a sixth of a block time if that is shorter.
    if (this.lastBlockTime === null) return Math.min(this.blockTime / 6, FIXED_POLL_MS);
    return nextPollDelay(this.lastBlockTime, now, this.blockTime, this.misses, this.ahead);
  }
}
