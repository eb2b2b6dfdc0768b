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
 * Milliseconds until the next read of the head. `lastBlockTime` is when the newest block came (ms: its
 * timestamp, plus how late the node serves blocks; taken as now when it lies ahead, so a fast clock on
 * the chain's side cannot stall the watcher),
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
  return Math.ceil(Math.min(firstStep(blockTime) * 2 ** Math.min(misses, 16), ceiling));
}

/** The first read past the due time comes this long after it. */
function firstStep(blockTime: number): number {
  const ceiling = Math.min(blockTime / 6, FIXED_POLL_MS);
  return Math.min(Math.max(blockTime * FIRST_STEP_SHARE, SHORTEST_STEP_MS), ceiling);
}

/**
 * A block stamped further ahead of this clock than clocks kept by NTP drift apart was made sooner than
 * its chain's pace (a devnet's virtual clock stamps each block a block time after its parent).
 */
const STAMPED_AHEAD_MS = 1_000;

/** How many blocks the node's lag is learnt from: the smallest of theirs, so one late block moves nothing. */
const LAG_SAMPLES = 4;

/**
 * One watcher's pace: what it saw of the chain, and the delay that follows from it. It learns how late
 * after its timestamp the node serves a block (propagation, a provider's caching), so the first read
 * past the due time comes when blocks lately appeared, not a second before: a block missed by a read
 * was not there yet then (a lower bound of the lag); one there at the first read may have come sooner,
 * so the next first read comes a step sooner.
 */
export class PollPace {
  /** When the newest block was there to read at the earliest: its timestamp plus the node's lag. */
  private lastBlockTime: number | null = null;
  /** When the next block is due, on this process's clock. */
  private due = 0;
  private misses = 0;
  private ahead = false;
  /** The last read that found no newer block: the newest block was not there yet then. */
  private lastMiss: number | null = null;
  private readonly lags: number[] = [];
  /** Only one block seen: whether the chain keeps its block time is not known yet. */
  private paceUnknown = true;

  constructor(private readonly blockTime: number) {}

  /** The newest block read is `time` (its timestamp), read `now`. */
  blockSeen(time: number, now: number): void {
    const first = this.lastBlockTime === null;
    this.ahead = (!first && now < this.due) || time > now + STAMPED_AHEAD_MS;
    this.paceUnknown = first;
    // A timestamp ahead of this clock counts from now, once: the due time it gives stays put.
    const stamped = Math.min(time, now);
    if (!first) {
      const { lastMiss } = this;
      const notThereFor = lastMiss !== null && lastMiss >= stamped ? lastMiss - stamped : null;
      this.learnLag(notThereFor ?? this.lag() - firstStep(this.blockTime));
    }
    this.lastBlockTime = stamped + this.lag();
    this.due = this.lastBlockTime + this.blockTime;
    this.misses = 0;
    this.lastMiss = null;
  }

  /** A read at `now` found no newer block; only those past the due time make the steps grow. */
  nothingNew(now: number): void {
    if (this.ahead || now >= this.due) this.misses++;
    this.lastMiss = now;
  }

  /** How long to wait from `now` before reading the head again. */
  delay(now: number): number {
    // Nothing seen yet (just started): the fixed pace, or a sixth of a block time if that is shorter.
    const fixed = Math.min(this.blockTime / 6, FIXED_POLL_MS);
    if (this.lastBlockTime === null) return fixed;
    const paced = nextPollDelay(this.lastBlockTime, now, this.blockTime, this.misses, this.ahead);
    // Until a second block shows the chain's pace, a block made on demand is looked for at the fixed pace.
    return this.paceUnknown ? Math.min(paced, fixed) : paced;
  }

  /** The block was not there `lag` ms after its timestamp (a lower bound; at most half a block time). */
  private learnLag(lag: number): void {
    this.lags.push(Math.min(Math.max(lag, 0), this.blockTime / 2));
    if (this.lags.length > LAG_SAMPLES) this.lags.shift();
  }

  private lag(): number {
    return this.lags.length === 0 ? 0 : Math.min(...this.lags);
  }
}
