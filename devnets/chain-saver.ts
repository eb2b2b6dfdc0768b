// Saves a devnet's chain on a timer: soon after a block with transactions (a crash loses at most one
// interval of what users did), only now and then while blocks come empty (saving a long chain every few
// seconds would cost more than losing a minute of empty blocks), and once more on stop.

/** What the saver needs to know of a devnet. */
export interface SavableChain {
  /** The head block's number. */
  head(): Promise<bigint>;
  /** Whether any block in (after, upTo] holds a transaction. */
  hasTransactions(after: bigint, upTo: bigint): Promise<boolean>;
  /** Writes the chain as it is now, at least up to `head`. */
  save(): Promise<void>;
}

export interface SaveSchedule {
  /** How often to look for new blocks; a block with transactions is saved within this time. */
  intervalMs: number;
  /** How long new blocks without transactions may wait to be saved. Default 60 s. */
  idleMs?: number;
}

export const DEFAULT_IDLE_SAVE_MS = 60_000;

export class ChainSaver {
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  private ticking = false;
  private saved: { head: bigint; at: number };
  /** The blocks after the saved head up to this one hold no transaction (at least the saved head). */
  private emptyUpTo: bigint;

  /** `savedHead`: the head the file on disk already holds (the one loaded, or just saved). */
  constructor(
    private readonly chain: SavableChain,
    private readonly schedule: SaveSchedule,
    savedHead: bigint,
    private readonly onError: (error: unknown) => void,
  ) {
    this.saved = { head: savedHead, at: Date.now() };
    this.emptyUpTo = savedHead;
  }

  start(): void {
    if (this.timer || this.schedule.intervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.schedule.intervalMs);
    // Saving must not keep alive a process that has nothing else to do.
    this.timer.unref();
  }

  /** Saves now if the chain moved since the last save. */
  flush(): Promise<void> {
    return this.enqueue(true);
  }

  /** Stops the timer and saves what the last save missed. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  // A tick that comes while the last one still runs is dropped: a slow disk must not pile up saves.
  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    this.enqueue(false)
      .catch(this.onError)
      .finally(() => {
        this.ticking = false;
      });
  }

  // One save at a time, in order.
  private enqueue(force: boolean): Promise<void> {
    const run = this.queue.then(() => this.saveIfDue(force));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async saveIfDue(force: boolean): Promise<void> {
    const head = await this.chain.head();
    if (head === this.saved.head) return;
    // A head below the saved one (a reorg) is saved at once.
    if (!force && head > this.saved.head && !(await this.worthSaving(head))) return;
    await this.chain.save();
    this.saved = { head, at: Date.now() };
    this.emptyUpTo = head;
  }

  /** Whether the blocks since the last save hold a transaction, or have waited long enough anyway. */
  private async worthSaving(head: bigint): Promise<boolean> {
    if (Date.now() - this.saved.at >= (this.schedule.idleMs ?? DEFAULT_IDLE_SAVE_MS)) return true;
    if (head <= this.emptyUpTo) return false;
    if (await this.chain.hasTransactions(this.emptyUpTo, head)) return true;
    this.emptyUpTo = head;
    return false;
  }
}
