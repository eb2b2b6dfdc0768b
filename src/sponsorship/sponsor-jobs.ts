import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { SponsoredTransfer } from '../chains/fee-sponsor.ts';
import { type ChainName, type Network, networkNamed } from '../chains/types.ts';
import type { MasterKey } from '../custody/master-key.ts';
import type { Database, SponsorJobsTable } from '../store/schema.ts';
import { callbackDue, callbackSecretContext } from './callbacks.ts';

export type JobKind = 'paymaster' | 'sweep' | 'activation';
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A job as its owner and the runner see it (keys stay sealed in the row). */
export interface SponsorJob {
  id: string;
  userId: string;
  chain: ChainName;
  network: Network;
  kind: JobKind;
  sweepId: string | null;
  status: JobStatus;
  reason: string | null;
  transfer: SponsoredTransfer;
  txid: string | null;
  notes: Record<string, string>;
  /** Base units still reserved (0 once the job ended). */
  reserved: bigint;
  callbackUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A job a runner holds: its lease token and its sender's sealed key. */
export interface ClaimedJob extends SponsorJob {
  leaseToken: string;
  ownerKeySealed: string | null;
}

export interface NewJob {
  userId: string;
  chain: ChainName;
  network: Network;
  kind: JobKind;
  sweepId?: string | null;
  transfer: SponsoredTransfer;
  /** The sender's key, sealed here with the master key for the job's life; null for an activation. */
  ownerKey: string | null;
  reserved: bigint;
  callbackUrl?: string | null;
  /** The callback's signing secret (`whsec_...`), sealed here. */
  callbackSecret?: string | null;
}

/** How often a claim that lost its job to another runner looks for the next one before giving up. */
const CLAIM_ATTEMPTS = 16;

/** Jobs of a place, 50 a page, newest first. */
export const JOBS_PAGE = 50;

/**
 * The sponsored jobs in the database: made (inside the reservation's transaction), claimed by a runner
 * under a lease (a runner that dies lets its lease lapse, and the next one resumes the job from its
 * notes), noted step by step, and ended, which gives back the reservation and erases the sender's key.
 */
export class SponsorJobs {
  constructor(
    readonly db: Kysely<Database>,
    private readonly masterKey: MasterKey,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Inserts a job; call it inside the transaction that checked the reservation (`trx`). */
  async insert(trx: Kysely<Database>, job: NewJob): Promise<SponsorJob> {
    const id = randomUUID();
    const at = this.now().toISOString();
    const row: SponsorJobsTable = {
      id,
      user_id: job.userId,
      chain: job.chain,
      network: job.network,
      kind: job.kind,
      sweep_id: job.sweepId ?? null,
      status: 'pending',
      reason: null,
      transfer_json: JSON.stringify(job.transfer),
      owner_key_sealed: job.ownerKey === null ? null : this.masterKey.seal(job.ownerKey, ownerContext(id)),
      reserved: job.reserved.toString(),
      txid: null,
      notes_json: '{}',
      callback_url: job.callbackUrl ?? null,
      callback_secret_sealed:
        job.callbackSecret == null
          ? null
          : this.masterKey.seal(job.callbackSecret, callbackSecretContext(id)),
      callback_state: null,
      callback_attempts: 0,
      callback_next_at: null,
      callback_error: null,
      lease_token: null,
      locked_until: null,
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto('sponsor_jobs').values(row).execute();
    return jobOf(row);
  }

  async get(owner: { userId: string; chain: ChainName; network: Network }, id: string) {
    const row = await this.db
      .selectFrom('sponsor_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', owner.userId)
      .where('chain', '=', owner.chain)
      .where('network', '=', owner.network)
      .executeTakeFirst();
    return row === undefined ? null : jobOf(row);
  }

  /** The job `id` of any user, for its callback. */
  async byId(id: string): Promise<SponsorJob | null> {
    const row = await this.db.selectFrom('sponsor_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : jobOf(row);
  }

  /** A page of the owner's jobs of some kinds, newest first, and how many there are. */
  async list(
    owner: { userId: string; chain: ChainName; network: Network },
    kinds: readonly JobKind[],
    page: number,
  ) {
    const where = this.db
      .selectFrom('sponsor_jobs')
      .where('user_id', '=', owner.userId)
      .where('chain', '=', owner.chain)
      .where('network', '=', owner.network)
      .where('kind', 'in', kinds);
    const rows = await where
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(JOBS_PAGE)
      .offset((page - 1) * JOBS_PAGE)
      .execute();
    const count = await where
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow();
    return { items: rows.map(jobOf), total: Number(count.n) };
  }

  async ofSweep(sweepId: string): Promise<SponsorJob[]> {
    const rows = await this.db
      .selectFrom('sponsor_jobs')
      .selectAll()
      .where('sweep_id', '=', sweepId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(jobOf);
  }

  /**
   * Takes the oldest job that is due: pending, or processing under a lease that lapsed (its runner died),
   * and not waiting for a retry. Answers null when none is.
   */
  async claim(leaseMs: number): Promise<ClaimedJob | null> {
    const now = this.now();
    const token = randomUUID();
    const due = (eb: ExpressionBuilder<Database, 'sponsor_jobs'>) =>
      eb.and([
        eb('status', 'in', ['pending', 'processing']),
        eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]),
      ]);
    // A runner's lanes (and other instances) ask at once and pick the same oldest job: the one that loses
    // it takes the next due job rather than answering none, which left one job per pass running.
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const candidate = await this.db
        .selectFrom('sponsor_jobs')
        .select('id')
        .where(due)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      if (candidate === undefined) return null;
      const row = await this.db
        .updateTable('sponsor_jobs')
        .set({ lease_token: token, locked_until: new Date(now.getTime() + leaseMs).toISOString() })
        .where('id', '=', candidate.id)
        .where(due)
        .returningAll()
        .executeTakeFirst();
      if (row !== undefined)
        return { ...jobOf(row), leaseToken: token, ownerKeySealed: row.owner_key_sealed };
    }
    return null;
  }

  /** The sender's key of a claimed job. */
  ownerKey(job: ClaimedJob): string | null {
    return job.ownerKeySealed === null ? null : this.masterKey.open(job.ownerKeySealed, ownerContext(job.id));
  }

  /** Keeps the lease (and marks the job processing); false when another runner took it. */
  async renew(job: ClaimedJob, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('sponsor_jobs')
      .set({
        status: 'processing',
        locked_until: new Date(this.now().getTime() + leaseMs).toISOString(),
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', job.id)
      .where('lease_token', '=', job.leaseToken)
      .where('status', 'in', ['pending', 'processing'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Merges `notes` into the job's; throws when the lease is no longer this runner's (nothing may go on). */
  async note(job: ClaimedJob, notes: Record<string, string>): Promise<void> {
    Object.assign(job.notes, notes);
    const result = await this.db
      .updateTable('sponsor_jobs')
      .set({ notes_json: JSON.stringify(job.notes), updated_at: this.now().toISOString() })
      .where('id', '=', job.id)
      .where('lease_token', '=', job.leaseToken)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new LeaseLostError(job.id);
  }

  /** One cost the sponsor bore, once per job, kind and transaction however often it is reported. */
  async spent(job: SponsorJob, what: string, units: bigint, txid: string): Promise<void> {
    await this.db
      .insertInto('sponsor_ledger')
      .values({
        job_id: job.id,
        user_id: job.userId,
        chain: job.chain,
        network: job.network,
        what,
        units: units.toString(),
        txid,
        created_at: this.now().toISOString(),
      })
      .onConflict((oc) => oc.columns(['job_id', 'what', 'txid']).doNothing())
      .execute();
  }

  /** Lets a job wait `delayMs` before a runner takes it again (its node could not be reached). */
  async postpone(job: ClaimedJob, delayMs: number): Promise<void> {
    await this.db
      .updateTable('sponsor_jobs')
      .set({ locked_until: new Date(this.now().getTime() + delayMs).toISOString(), lease_token: null })
      .where('id', '=', job.id)
      .where('lease_token', '=', job.leaseToken)
      .execute();
  }

  /**
   * Ends a job: completed with its txid, or failed with why. The reservation is given back (the ledger
   * holds what was spent), the sender's key erased, and the callback, if any, made due.
   */
  async finish(
    job: ClaimedJob,
    outcome: { status: 'completed'; txid: string } | { status: 'failed'; reason: string },
  ): Promise<void> {
    const at = this.now().toISOString();
    await this.db
      .updateTable('sponsor_jobs')
      .set({
        status: outcome.status,
        txid: outcome.status === 'completed' ? outcome.txid : null,
        reason: outcome.status === 'failed' ? outcome.reason : null,
        reserved: '0',
        owner_key_sealed: null,
        lease_token: null,
        locked_until: null,
        callback_state: callbackDue,
        callback_next_at: at,
        updated_at: at,
      })
      .where('id', '=', job.id)
      .where('lease_token', '=', job.leaseToken)
      .execute();
  }

  /** How many of a sweep's jobs are still open. */
  async openOfSweep(sweepId: string): Promise<number> {
    const row = await this.db
      .selectFrom('sponsor_jobs')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('sweep_id', '=', sweepId)
      .where('status', 'in', ['pending', 'processing'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

/** Another runner holds the job now: this one stops touching it. */
export class LeaseLostError extends Error {
  constructor(id: string) {
    super(`sponsored job ${id} is held by another runner`);
    this.name = 'LeaseLostError';
  }
}

function ownerContext(id: string): string {
  return `sponsor-job:${id}`;
}

function jobOf(row: SponsorJobsTable): SponsorJob {
  return {
    id: row.id,
    userId: row.user_id,
    chain: row.chain,
    network: networkNamed(row.network),
    kind: row.kind === 'sweep' ? 'sweep' : row.kind === 'activation' ? 'activation' : 'paymaster',
    sweepId: row.sweep_id,
    status: statusOf(row.status),
    reason: row.reason,
    transfer: JSON.parse(row.transfer_json) as SponsoredTransfer,
    txid: row.txid,
    notes: JSON.parse(row.notes_json) as Record<string, string>,
    reserved: BigInt(row.reserved),
    callbackUrl: row.callback_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function statusOf(status: string): JobStatus {
  return status === 'processing' || status === 'completed' || status === 'failed' ? status : 'pending';
}
