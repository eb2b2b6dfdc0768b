import { ApiError } from '../errors.ts';

/**
 * Every password-based key derivation (scrypt, PBKDF2) of a key goes through one scheduler. A derivation
 * holds a libuv pool thread (4 by default, shared with fs, dns and the rest of node:crypto) for hundreds of
 * milliseconds; unbounded, one tenant's burst fills the pool and every other tenant waits behind it. So at
 * most `concurrency` derivations run at once (below the pool size, so other work still gets threads), and
 * waiting jobs are served round-robin across owners (users): a tenant that fires 50 at once waits behind
 * itself while another tenant's single job runs next.
 *
 * Work for nobody known yet (a sign-in, a sign-up) is anonymous: every email would otherwise be an owner of
 * its own, and a flood of made-up emails would take every turn. All anonymous work is one owner in the
 * round-robin, runs in at most `anonymousConcurrency` of the slots and has its own bound on what waits, so
 * a flood of sign-ins costs the users' keys at most those slots. A job whose client has gone (its signal
 * aborted) is dropped before it runs: nobody would read its answer.
 *
 * The pool is per process, so is the scheduler: `kdfScheduler` is the one instance, sized at start.
 */
export interface KdfLimits {
  /** Derivations running at once. */
  concurrency: number;
  /** Jobs one owner may have waiting; past that, KdfQueueFullError. */
  maxQueuedPerOwner: number;
  /** Anonymous derivations running at once (at most `concurrency`). */
  anonymousConcurrency: number;
  /** Anonymous jobs waiting, all together; past that, KdfQueueFullError at once. */
  maxQueuedAnonymous: number;
}

export const DEFAULT_KDF_LIMITS: KdfLimits = {
  concurrency: 2,
  maxQueuedPerOwner: 32,
  anonymousConcurrency: 1,
  maxQueuedAnonymous: 8,
};

/** Who a derivation is for, and what must still hold when its turn comes. */
export interface KdfCaller {
  /** The fairness unit, a user id; work nobody asked for (tools, tests) shares one queue. */
  owner?: string;
  /** Work for nobody known yet (sign-in, sign-up): it shares the one bounded anonymous class, `owner` aside. */
  anonymous?: boolean;
  /** Aborted when the client that asked has gone: a job still waiting is dropped (KdfCallerGoneError). */
  signal?: AbortSignal;
  /**
   * Runs in the job's slot just before the derivation; throwing refuses the job without deriving. Checks
   * that depend on what happened while the job waited (a lockout recorded meanwhile) belong here.
   */
  admit?: () => Promise<void>;
}

const UNATTRIBUTED = '';
/** The one owner of all anonymous work; a symbol, so no user id or email can be it. */
const ANONYMOUS = Symbol('anonymous');
type Owner = string | typeof ANONYMOUS;

export class KdfQueueFullError extends ApiError {
  constructor() {
    super(429, 'Too many key operations in progress', [], { 'Retry-After': '1' });
    this.name = 'KdfQueueFullError';
  }
}

/** The client left while its derivation waited; the answer goes nowhere, the status is for the logs. */
export class KdfCallerGoneError extends ApiError {
  constructor() {
    super(499, 'The client closed the request before its key derivation ran');
    this.name = 'KdfCallerGoneError';
  }
}

export interface KdfLoad {
  running: number;
  waiting: number;
  anonymousRunning: number;
  anonymousWaiting: number;
  started: number;
  dropped: number;
}

interface Job {
  anonymous: boolean;
  start: () => Promise<void>;
  /** Rejects the job without running it (its client has gone). */
  drop: () => void;
}

export class KdfScheduler {
  private running = 0;
  private anonymousRunning = 0;
  private started = 0;
  private dropped = 0;
  /** Waiting jobs per owner, never an empty list; the map's order is the round-robin order. */
  private readonly waiting = new Map<Owner, Job[]>();

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
    const anonymous = caller.anonymous === true;
    const owner: Owner = anonymous ? ANONYMOUS : (caller.owner ?? UNATTRIBUTED);
    const bound = anonymous ? this.limits.maxQueuedAnonymous : this.limits.maxQueuedPerOwner;
    if ((this.waiting.get(owner)?.length ?? 0) >= bound) return Promise.reject(new KdfQueueFullError());
    const { signal } = caller;
    if (signal?.aborted) return this.refuseGone();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (this.withdraw(owner, job)) job.drop();
      };
      const job: Job = {
        anonymous,
        start: async () => {
          signal?.removeEventListener('abort', onAbort);
          try {
            await caller.admit?.();
            resolve(await derive());
          } catch (error) {
            reject(error);
          }
        },
        drop: () => {
          this.dropped++;
          reject(new KdfCallerGoneError());
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(owner);
      // A new owner joins the back of the line; a waiting one keeps its place.
      if (queue === undefined) this.waiting.set(owner, [job]);
      else queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Derivations running and waiting now (all, and the anonymous ones); jobs started, and jobs dropped because
   * their client had gone, since the process began (metrics, tests).
   */
  load(): KdfLoad {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return {
      running: this.running,
      waiting,
      anonymousRunning: this.anonymousRunning,
      anonymousWaiting: this.waiting.get(ANONYMOUS)?.length ?? 0,
      started: this.started,
      dropped: this.dropped,
    };
  }

  private refuseGone<T>(): Promise<T> {
    this.dropped++;
    return Promise.reject(new KdfCallerGoneError());
  }

  /** Takes a waiting job out of its owner's line; false when it has already started. */
  private withdraw(owner: Owner, job: Job): boolean {
    const queue = this.waiting.get(owner);
    const at = queue?.indexOf(job) ?? -1;
    if (queue === undefined || at === -1) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.waiting.delete(owner);
    return true;
  }

  private dispatch(): void {
    while (this.running < this.limits.concurrency) {
      const owner = this.nextOwner();
      if (owner === undefined) return;
      const queue = this.waiting.get(owner) ?? [];
      const job = queue.shift();
      this.waiting.delete(owner);
      if (job === undefined) continue;
      // Served once: to the back of the line if it has more waiting.
      if (queue.length > 0) this.waiting.set(owner, queue);
      this.start(job);
    }
  }

  /** The first owner in line that may run now: anonymous work waits while its slots are taken. */
  private nextOwner(): Owner | undefined {
    for (const owner of this.waiting.keys()) {
      if (owner !== ANONYMOUS || this.anonymousRunning < this.limits.anonymousConcurrency) return owner;
    }
    return undefined;
  }

  private start(job: Job): void {
    this.running++;
    this.started++;
    if (job.anonymous) this.anonymousRunning++;
    void job.start().finally(() => {
      this.running--;
      if (job.anonymous) this.anonymousRunning--;
      this.dispatch();
    });
  }
}

function assertLimits(limits: KdfLimits): void {
  if (!Number.isInteger(limits.concurrency) || limits.concurrency < 1)
    throw new RangeError('KDF concurrency must be a whole number >= 1');
  if (!Number.isInteger(limits.maxQueuedPerOwner) || limits.maxQueuedPerOwner < 1)
    throw new RangeError('KDF queue bound must be a whole number >= 1');
  if (
    !Number.isInteger(limits.anonymousConcurrency) ||
    limits.anonymousConcurrency < 1 ||
    limits.anonymousConcurrency > limits.concurrency
  )
    throw new RangeError('anonymous KDF concurrency must be a whole number from 1 to the KDF concurrency');
  if (!Number.isInteger(limits.maxQueuedAnonymous) || limits.maxQueuedAnonymous < 1)
    throw new RangeError('anonymous KDF queue bound must be a whole number >= 1');
}

/** The process's scheduler: every key derivation (key vault, keystores) runs through it. */
export const kdfScheduler = new KdfScheduler();
