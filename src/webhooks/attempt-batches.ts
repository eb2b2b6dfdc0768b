/** Writes attempts in one transaction; for each, whether its claim was still held. */
export type WriteAttempts<Attempt> = (attempts: readonly Attempt[]) => Promise<boolean[]>;

interface Waiting<Attempt> {
  attempt: Attempt;
  resolve: (kept: boolean) => void;
  reject: (error: unknown) => void;
}

/** Past this many attempts a batch is written and the rest wait for the next one. */
const MAX_BATCH = 128;
/** How long a batch waits for the answers still expected, unless it reaches GATHERED first. */
export const GATHER_MS = 5;
/** A batch this large is written without waiting for more. */
const GATHERED = 48;

export interface AttemptBatchesOptions {
  /**
   * Whether more attempts are about to finish (requests in flight to a receiver that answers promptly):
   * then a batch waits up to GATHER_MS for them, so that one write records more of them.
   */
  moreExpected?: () => boolean;
  /** Batches written at once (default 1): more where the database commits several transactions at once. */
  parallel?: number;
}

/**
 * Gathers the attempts that finish close together and writes them in one transaction: those finished
 * within one turn of the event loop (or while the previous batch was being written, or within GATHER_MS
 * while more are expected) share a batch. Batches are written one at a time (or `parallel` at a time), so
 * each waits at most for those before it, and one that ends writes at once what gathered meanwhile. When
 * a batch fails its attempts are written one by one, so a single bad row does not take the others'
 * records with it.
 */
export class AttemptBatches<Attempt> {
  private waiting: Waiting<Attempt>[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  /** Batches being written. */
  private writes = 0;
  /** Attempts in the batches being written. */
  private writing = 0;

  constructor(
    private readonly write: WriteAttempts<Attempt>,
    private readonly options: AttemptBatchesOptions = {},
  ) {}

  /** Resolves when written: false when the claim had lapsed (the row was left alone); rejects if the write failed. */
  record(attempt: Attempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ attempt, resolve, reject });
      this.schedule();
    });
  }

  /** Attempts waiting or being written. */
  get unrecorded(): number {
    return this.waiting.length + this.writing;
  }

  /** Attempts are waiting or being written. */
  get busy(): boolean {
    return this.waiting.length > 0 || this.scheduled || this.writes > 0;
  }

  private schedule(): void {
    if (this.waiting.length >= GATHERED && this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
      this.scheduled = false;
    }
    if (this.scheduled || this.writes >= (this.options.parallel ?? 1)) return;
    this.scheduled = true;
    const write = () => {
      this.timer = null;
      this.scheduled = false;
      this.drain();
    };
    if (this.waiting.length < GATHERED && this.options.moreExpected?.() === true) {
      this.timer = setTimeout(write, GATHER_MS);
    } else {
      setImmediate(write);
    }
  }

  /** Starts batches while fewer than `parallel` are being written; one that ends writes what waited meanwhile. */
  private drain(): void {
    while (this.waiting.length > 0 && this.writes < (this.options.parallel ?? 1)) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      this.writes++;
      this.writing += batch.length;
      void this.writeBatch(batch).finally(() => {
        this.writes--;
        this.writing -= batch.length;
        this.drain();
      });
    }
  }

  private async writeBatch(batch: Waiting<Attempt>[]): Promise<void> {
    try {
      const kept = await this.write(batch.map((entry) => entry.attempt));
      batch.forEach((entry, i) => {
        entry.resolve(kept[i] === true);
      });
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const entry of batch) await this.writeBatch([entry]);
    }
  }
}
