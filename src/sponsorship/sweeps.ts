import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import { formatAmount } from '../chains/amount.ts';
import type { FeeSponsor } from '../chains/fee-sponsor.ts';
import type { Caller } from '../chains/ports.ts';
import { type ChainName, type Network, networkNamed } from '../chains/types.ts';
import type { SigningProof } from '../custody/address-keys.ts';
import type { MasterKey } from '../custody/master-key.ts';
import { ApiError } from '../errors.ts';
import type { Database, SweepsTable } from '../store/schema.ts';
import { callbackDue, callbackSecretContext } from './callbacks.ts';
import { noSponsor, type SponsorReservations } from './reservations.ts';
import type { SponsorJob, SponsorJobs } from './sponsor-jobs.ts';
import type { SponsorDirectory } from './sponsors.ts';

/** The most addresses one sweep gathers from. */
export const MAX_SWEEP_ADDRESSES = 1_000;

export interface SweepRequest {
  to: string;
  contract: string | null;
  /** Addresses to gather from; null: every address of the caller on the chain and network. */
  from: string[] | null;
  /** Addresses holding less (base units of what is swept) are skipped; null: none. */
  minUnits: bigint | null;
  /** The password the addresses' keys open with (sealed until the sweep has made its jobs). */
  password: string | null;
  callbackUrl: string | null;
  callbackSecret: string | null;
}

/** An address a sweep left out, and why. */
export interface SkippedAddress {
  address: string;
  reason: string;
}

export interface Sweep {
  id: string;
  userId: string;
  chain: ChainName;
  network: Network;
  to: string;
  contract: string | null;
  /** `pending` (its jobs are being made), `running`, or `completed`. */
  status: string;
  skipped: SkippedAddress[];
  callbackUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface SweepJobsDeps {
  db: Kysely<Database>;
  masterKey: MasterKey;
  jobs: SponsorJobs;
  sponsors: SponsorDirectory;
  reservations: SponsorReservations;
  feeSponsorOf(chain: ChainName): FeeSponsor | undefined;
  /** The caller's custodial addresses on a chain and network. */
  addressesOf(caller: Caller): Promise<string[]>;
  /** The key of `address`, proven as a send proves it (the address's password). */
  provenKey(caller: Caller, proof: SigningProof, address: string): Promise<string>;
  /** The type name of the chain's coin and of its fungible tokens, as the paymaster takes them. */
  transferType(chain: ChainName, token: boolean): string;
  /** A sweep was made: make its jobs soon. */
  wakeRunner(): void;
  now?: () => Date;
}

/** What `addressJob` answers for the sweep's destination: neither a job nor a skipped address. */
const DESTINATION = 'the sweep gathers here';

/** Sweeps looked at per pass. */
const BATCH = 5;
/** How long one instance holds a sweep while making its jobs. */
const LEASE_MS = 5 * 60_000;

/**
 * Sweeps: many of a user's addresses gathered into one, each address's transfer a sponsored job. A sweep
 * is made at once (202); its jobs are made in the background (each address's holding read, the transfer
 * quoted, its key opened, its cost reserved), and it is completed when they all ended. An address is
 * skipped, with the reason, when it holds nothing or less than `min_amount`, when its coin would not pay
 * for its own move, when its key does not open, or when the pre-flight knows the transfer would fail.
 */
export class SweepJobs {
  private readonly now: () => Date;

  constructor(private readonly deps: SweepJobsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(caller: Caller, request: SweepRequest): Promise<Sweep> {
    const { db, masterKey } = this.deps;
    if (this.deps.feeSponsorOf(caller.chain) === undefined) throw noFeeSponsor(caller.chain);
    if ((await this.deps.sponsors.get(caller.chain, caller.network)) === null)
      throw noSponsor(caller.chain, caller.network);
    const id = randomUUID();
    const at = this.now().toISOString();
    const row: SweepsTable = {
      id,
      user_id: caller.userId,
      chain: caller.chain,
      network: caller.network,
      to: request.to,
      contract: request.contract,
      min_units: request.minUnits === null ? null : request.minUnits.toString(),
      from_json: request.from === null ? null : JSON.stringify(request.from),
      password_sealed:
        request.password === null ? null : masterKey.seal(request.password, passwordContext(id)),
      status: 'pending',
      skipped_json: '[]',
      callback_url: request.callbackUrl,
      callback_secret_sealed:
        request.callbackSecret === null
          ? null
          : masterKey.seal(request.callbackSecret, callbackSecretContext(id)),
      callback_state: null,
      callback_attempts: 0,
      callback_next_at: null,
      callback_error: null,
      lease_token: null,
      locked_until: null,
      created_at: at,
      updated_at: at,
    };
    await db.insertInto('sweeps').values(row).execute();
    this.deps.wakeRunner();
    return sweepOf(row);
  }

  async get(caller: Caller, id: string): Promise<{ sweep: Sweep; jobs: SponsorJob[] } | null> {
    const row = await this.deps.db
      .selectFrom('sweeps')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', caller.userId)
      .where('chain', '=', caller.chain)
      .where('network', '=', caller.network)
      .executeTakeFirst();
    if (row === undefined) return null;
    return { sweep: sweepOf(row), jobs: await this.deps.jobs.ofSweep(id) };
  }

  /** The sweep `id` of any user, for its callback. */
  async byId(id: string): Promise<{ sweep: Sweep; jobs: SponsorJob[] } | null> {
    const row = await this.deps.db.selectFrom('sweeps').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? null : { sweep: sweepOf(row), jobs: await this.deps.jobs.ofSweep(id) };
  }

  /** Makes the jobs of the sweeps still pending (or whose maker died); one instance per sweep. */
  async expandPending(): Promise<void> {
    const now = this.now();
    const open = (eb: ExpressionBuilder<Database, 'sweeps'>) =>
      eb.and([
        eb('status', '=', 'pending'),
        eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]),
      ]);
    const rows = await this.deps.db.selectFrom('sweeps').select('id').where(open).limit(BATCH).execute();
    for (const { id } of rows) {
      const token = randomUUID();
      const held = await this.deps.db
        .updateTable('sweeps')
        .set({ lease_token: token, locked_until: new Date(now.getTime() + LEASE_MS).toISOString() })
        .where('id', '=', id)
        .where(open)
        .returningAll()
        .executeTakeFirst();
      if (held !== undefined) await this.expand(held, token);
    }
  }

  /** Completes the running sweeps whose jobs all ended; their callbacks become due. */
  async endFinished(): Promise<void> {
    const running = await this.deps.db
      .selectFrom('sweeps')
      .select('id')
      .where('status', '=', 'running')
      .execute();
    for (const { id } of running) {
      if ((await this.deps.jobs.openOfSweep(id)) > 0) continue;
      const at = this.now().toISOString();
      await this.deps.db
        .updateTable('sweeps')
        .set({ status: 'completed', updated_at: at, callback_state: callbackDue, callback_next_at: at })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .execute();
    }
  }

  private async expand(row: SweepsTable, token: string): Promise<void> {
    const sweep = sweepOf(row);
    const caller: Caller = { userId: sweep.userId, chain: sweep.chain, network: sweep.network };
    const password =
      row.password_sealed === null
        ? null
        : this.deps.masterKey.open(row.password_sealed, passwordContext(row.id));
    const asked: string[] = row.from_json === null ? [] : (JSON.parse(row.from_json) as string[]);
    // An address named twice moves once: its second job would find nothing left to move.
    const addresses = [...new Set(asked.length > 0 ? asked : await this.deps.addressesOf(caller))].filter(
      (address) => address !== sweep.to,
    );
    const skipped: SkippedAddress[] = [];
    const already = new Set((await this.deps.jobs.ofSweep(row.id)).map((job) => job.transfer.from));
    const sponsorAddress = (await this.deps.sponsors.get(sweep.chain, sweep.network))?.address ?? null;
    for (const address of addresses) {
      if (already.has(address)) continue;
      const reason = await this.addressJob(sweep, row, caller, address, password, sponsorAddress);
      if (reason !== null && reason !== DESTINATION) skipped.push({ address, reason });
    }
    await this.deps.db
      .updateTable('sweeps')
      .set({
        status: 'running',
        skipped_json: JSON.stringify(skipped),
        password_sealed: null,
        lease_token: null,
        locked_until: null,
        updated_at: this.now().toISOString(),
      })
      .where('id', '=', row.id)
      .where('lease_token', '=', token)
      .execute();
  }

  /**
   * Makes one address's job; answers why the address is skipped instead, or null; DESTINATION for the
   * sweep's own `to`, written in another form (an EVM address in another case), which is left out.
   */
  private async addressJob(
    sweep: Sweep,
    row: SweepsTable,
    caller: Caller,
    address: string,
    password: string | null,
    sponsorAddress: string | null,
  ): Promise<string | null> {
    const sponsor = this.deps.feeSponsorOf(sweep.chain);
    if (sponsor === undefined || sponsorAddress === null) return 'no sponsor pays fees on this chain';
    try {
      const held = await sponsor.holding(sweep.chain, sweep.network, address, sweep.contract);
      if (held === 0n) return 'holds nothing to sweep';
      if (row.min_units !== null && held < BigInt(row.min_units)) return 'holds less than min_amount';
      const units = await sponsor.sweepUnits(sweep.chain, sweep.network, address, sweep.contract, held);
      if (units === null || units <= 0n) return 'its balance would not pay for its own fee';
      const decimals = await sponsor.decimals(sweep.chain, sweep.network, sweep.contract);
      const transfer = await sponsor.transfer(sweep.chain, sweep.network, {
        type: this.deps.transferType(sweep.chain, sweep.contract !== null),
        from: address,
        to: sweep.to,
        contractaddress: sweep.contract ?? undefined,
        amount: formatAmount(units, decimals),
      });
      if (transfer.from === transfer.to) return DESTINATION;
      const quote = await sponsor.quote(sweep.chain, sweep.network, transfer, sponsorAddress);
      if (password === null) return 'no password was given to open its key';
      const ownerKey = await this.deps.provenKey(caller, { password }, address);
      await this.deps.reservations.reserve({
        ...caller,
        kind: 'sweep',
        sweepId: sweep.id,
        transfer,
        ownerKey,
        reserved: quote.maxCost,
      });
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return error.message;
      throw error;
    }
  }
}

/** The answer of a chain whose family cannot sponsor (Bitcoin pays its fee from the coins it moves). */
export function noFeeSponsor(chain: ChainName): ApiError {
  return new ApiError(
    422,
    `${chain} has no fee sponsor: a ${chain} transfer pays its fee from the coins it moves, so an address that holds the coins can always send them`,
  );
}

/** One address's part of a sweep as the API shows it. */
export function sweptAddress(job: SponsorJob) {
  const { transfer } = job;
  return {
    address: transfer.from,
    amount: formatAmount(BigInt(transfer.units), transfer.decimals),
    status: job.status === 'failed' ? `failed - ${job.reason ?? 'unknown'}` : job.status,
    txid: job.txid,
    job_id: job.id,
  };
}

function passwordContext(id: string): string {
  return `sweep-password:${id}`;
}

function sweepOf(row: SweepsTable): Sweep {
  return {
    id: row.id,
    userId: row.user_id,
    chain: row.chain,
    network: networkNamed(row.network),
    to: row.to,
    contract: row.contract,
    status: row.status,
    skipped: JSON.parse(row.skipped_json) as SkippedAddress[],
    callbackUrl: row.callback_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
