import type { BackgroundTask } from '../chains/family.ts';
import { type FeeSponsor, type SponsoredRun, SponsorshipRefused } from '../chains/fee-sponsor.ts';
import { PeriodicPass } from '../chains/periodic-pass.ts';
import type { ChainName } from '../chains/types.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { CallbackDeliveries } from './callbacks.ts';
import { type ClaimedJob, LeaseLostError, type SponsorJobs } from './sponsor-jobs.ts';
import type { SponsorDirectory } from './sponsors.ts';
import type { SweepJobs } from './sweeps.ts';

export interface JobRunnerDeps {
  jobs: SponsorJobs;
  sponsors: SponsorDirectory;
  sweeps: SweepJobs;
  callbacks: CallbackDeliveries;
  feeSponsorOf(chain: ChainName): FeeSponsor | undefined;
  logger: Logger;
  /** How long a runner holds a job between renewals; one that dies lets it lapse (default 60 s). */
  leaseMs?: number;
  /** Jobs run side by side per pass (default 8). */
  concurrency?: number;
  /** How long a job may wait on an unreachable node before it is unwound and failed (default 15 min). */
  giveUpMs?: number;
  now?: () => Date;
}

/** A job whose node could not be reached waits this long before it is tried again. */
const RETRY_MS = 15_000;

/**
 * Runs the sponsored jobs where the watchers run, on every instance that has that role (each job is
 * claimed under a lease): a new job, or one whose runner died (its lease lapsed), is run or resumed from
 * its notes by the family's sponsor; a refusal unwinds what the job lent and fails it with the reason;
 * an unreachable node postpones it, until it has waited too long. It also turns new sweeps into their
 * jobs, ends the sweeps whose jobs all ended, and sends the callbacks that are due.
 */
export class SponsorJobRunner implements BackgroundTask {
  private readonly passes = new PeriodicPass(
    () => this.runOnce(),
    (error) => this.deps.logger.warn({ err: error }, 'sponsored jobs pass failed'),
  );
  private readonly leaseMs: number;
  private readonly now: () => Date;
  private again = false;
  private running: Promise<void> | null = null;
  /** Set by stop(): no job is claimed any more, and a job cut off by the shutdown is handed back. */
  private stopping = false;

  constructor(private readonly deps: JobRunnerDeps) {
    this.leaseMs = deps.leaseMs ?? 60_000;
    this.now = deps.now ?? (() => new Date());
  }

  start(intervalMs = 1_000): void {
    this.stopping = false;
    this.passes.start(intervalMs);
  }

  /**
   * Claims no more jobs and waits for the pass under way. A job whose node calls the shutdown abandons
   * (the registry closes once its grace is over) is handed back at once, for another runner to resume
   * from its notes, rather than postponed.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.passes.stop();
    await this.running;
  }

  /** A new job or sweep was made in this process: run a pass now rather than at the next tick. */
  wakeUp(): void {
    if (this.stopping) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.runOnce()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'sponsored jobs pass failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wakeUp();
        }
      });
  }

  /** Expands new sweeps, runs every due job (a few side by side), ends finished sweeps, sends callbacks. */
  async runOnce(): Promise<void> {
    await this.deps.sweeps.expandPending();
    const lanes = Array.from({ length: this.deps.concurrency ?? 8 }, async () => {
      while (!this.stopping) {
        const job = await this.deps.jobs.claim(this.leaseMs);
        if (job === null) return;
        await this.execute(job);
      }
    });
    await Promise.all(lanes);
    if (this.stopping) return;
    await this.deps.sweeps.endFinished();
    await this.deps.callbacks.deliverDue();
  }

  private async execute(job: ClaimedJob): Promise<void> {
    const { jobs, logger } = this.deps;
    const renewal = setInterval(() => {
      jobs.renew(job, this.leaseMs).catch(() => undefined);
    }, this.leaseMs / 3);
    renewal.unref();
    try {
      if (!(await jobs.renew(job, this.leaseMs))) return;
      const txid = await this.perform(job);
      await jobs.finish(job, { status: 'completed', txid });
    } catch (error) {
      if (error instanceof LeaseLostError) return;
      if (this.stopping && !isRefusal(error)) {
        // The shutdown cut its node calls off: the job is neither failed nor kept waiting.
        logger.info({ job: job.id, chain: job.chain }, 'sponsored job handed back at shutdown');
        await jobs.postpone(job, 0);
      } else if (isRefusal(error) || this.waitedTooLong(job)) {
        const reason = error instanceof Error ? error.message : String(error);
        await this.unwind(job);
        await jobs.finish(job, { status: 'failed', reason });
        logger.info({ job: job.id, chain: job.chain, reason }, 'sponsored job failed');
      } else {
        logger.warn({ err: error, job: job.id, chain: job.chain }, 'sponsored job postponed');
        await jobs.postpone(job, RETRY_MS);
      }
    } finally {
      clearInterval(renewal);
    }
  }

  /** Runs the job's step by the family's sponsor; answers the txid the job ends with. */
  private async perform(job: ClaimedJob): Promise<string> {
    const run = await this.runOf(job);
    const sponsor = this.sponsorOf(job);
    if (job.kind === 'activation') {
      if (sponsor.activate === undefined)
        throw new SponsorshipRefused(`${job.chain} addresses need no activation`);
      const txid = await sponsor.activate(job.chain, job.network, run.sponsor, job.transfer.to, run.journal);
      if (txid === null) throw new SponsorshipRefused(`${job.transfer.to} exists on chain already`);
      return txid;
    }
    return (await sponsor.run(run)).txid;
  }

  private async unwind(job: ClaimedJob): Promise<void> {
    try {
      await this.sponsorOf(job).unwind(await this.runOf(job));
    } catch (error) {
      // Left for the operator: the job's notes keep what it still holds.
      this.deps.logger.error({ err: error, job: job.id, chain: job.chain }, 'sponsored job not unwound');
    }
  }

  private sponsorOf(job: ClaimedJob): FeeSponsor {
    const sponsor = this.deps.feeSponsorOf(job.chain);
    if (sponsor === undefined) throw new SponsorshipRefused(`${job.chain} has no fee sponsor`);
    return sponsor;
  }

  private async runOf(job: ClaimedJob): Promise<SponsoredRun> {
    const { jobs, sponsors } = this.deps;
    const sponsor = await sponsors.keyHolder(job.chain, job.network);
    if (sponsor === null) throw new SponsorshipRefused(`no sponsor pays fees on ${job.chain} ${job.network}`);
    const ownerKey = jobs.ownerKey(job);
    return {
      chain: job.chain,
      network: job.network,
      transfer: job.transfer,
      sponsor,
      owner: { address: job.transfer.from, privateKey: ownerKey ?? '' },
      maxCost: job.reserved,
      journal: {
        notes: job.notes,
        note: (notes) => jobs.note(job, notes),
        spent: (what, units, txid) => jobs.spent(job, what, units, txid),
      },
    };
  }

  private waitedTooLong(job: ClaimedJob): boolean {
    return this.now().getTime() - Date.parse(job.createdAt) > (this.deps.giveUpMs ?? 15 * 60_000);
  }
}

/** A failure the caller is told as the job's reason: the family's refusal or a client error. */
function isRefusal(error: unknown): boolean {
  return error instanceof SponsorshipRefused || (error instanceof ApiError && error.status < 500);
}
