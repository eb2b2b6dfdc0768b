import { ApiError } from '../errors.ts';

/**
 * Every password-based key derivation (scrypt, PBKDF2) of a key goes through one scheduler. A derivation
 * holds a libuv pool thread (4 by default, shared with fs, dns and the rest of node:crypto) for hundreds of
 * milliseconds; unbounded, one tenant's burst fills the pool and every other tenant waits behind it. So at
 * most `concurrency` derivations run at once (below the pool size, so other work still gets threads), and
 * waiting jobs are served round-robin across owners (users): a tenant that fires 50 at once waits behind
 * itself while another tenant's single job runs next.
 *
 * The pool is per process, so is the scheduler: `kdfScheduler` is the one instance, sized at start.
 */
export interface KdfLimits {
  /** Derivations running at once. */
  concurrency: number;
  /** Jobs one owner may have waiting; past that, KdfQueueFullError. */
  maxQueuedPerOwner: number;
}

export const DEFAULT_KDF_LIMITS: KdfLimits = { concurrency: 2, maxQueuedPerOwner: 32 };

/** Who a derivation is for, and what must still hold when its turn comes. */
export interface KdfCaller {
  /** The fairness unit, a user id; work nobody asked for (tools, tests) shares one queue. */
  owner?: string;
  /**
   * Runs in the job's slot just before the derivation; throwing refuses the job without deriving. Checks
   * that depend on what happened while the job waited (a lockout recorded meanwhile) belong here.
   */
  admit?: () => Promise<void>;
}

const UNATTRIBUTED = '';

export class KdfQueueFullError extends ApiError {
  constructor() {
    super(429, 'Too many key operations in progress', [], { 'Retry-After': '1' });
    this.name = 'KdfQueueFullError';
  }
}

type Job = () => Promise<void>;

export class KdfScheduler {
  private running = 0;
  /** Waiting jobs per owner; the map's order is the round-robin order. */
  private readonly waiting = new Map<string, Job[]>();

  constructor(private limits: KdfLimits = DEFAULT_KDF_LIMITS) {
    assertLimits(limits);
  }

  configure(limits: KdfLimits): void {
    assertLimits(limits);
    this.limits = { ...limits };
    this.dispatch();
  }

  /** Runs `derive` when a slot is free and it is the caller's turn. */
  run<T>(caller: KdfCaller, derive: () => Promise<T>): Promise<T> {
    const owner = caller.owner ?? UNATTRIBUTED;
    const queue = this.waiting.get(owner) ?? [];
    if (queue.length >= this.limits.maxQueuedPerOwner) return Promise.reject(new KdfQueueFullError());
    return new Promise<T>((resolve, reject) => {
      queue.push(async () => {
        try {
          await caller.admit?.();
          resolve(await derive());
        } catch (error) {
          reject(error);
        }
      });
      // A new owner joins the back of the line; a waiting one keeps its place.
      if (!this.waiting.has(owner)) this.waiting.set(owner, queue);
      this.dispatch();
    });
  }

  /** Derivations running and waiting now (metrics, tests). */
  load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { running: this.running, waiting };
  }

  private dispatch(): void {
    while (this.running < this.limits.concurrency) {
      const next = this.waiting.entries().next();
      if (next.done === true) return;
      const [owner, queue] = next.value;
      const job = queue.shift();
      this.waiting.delete(owner);
      if (job === undefined) continue;
      // Served once: to the back of the line if it has more waiting.
      if (queue.length > 0) this.waiting.set(owner, queue);
      this.running++;
      void job().finally(() => {
        this.running--;
        this.dispatch();
      });
    }
  }
}

function assertLimits(limits: KdfLimits): void {
  if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1)
    throw new RangeError('KDF concurrency must be a whole number >= 1');
  if (!Number.isInteger(limits.maxQueuedPerOwner) || limits.maxQueuedPerOwner < 1)
    throw new RangeError('KDF queue bound must be a whole number >= 1');
}

/** The process's scheduler: every key derivation (key vault, keystores) runs through it. */
export const kdfScheduler = new KdfScheduler();
