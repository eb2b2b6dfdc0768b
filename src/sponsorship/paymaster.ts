import type { Kysely } from 'kysely';
import type { FeeSponsor, PaymasterRequest, SponsoredTransfer, SponsorQuote } from '../chains/fee-sponsor.ts';
import type { Caller } from '../chains/ports.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { SigningProof } from '../custody/address-keys.ts';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import { sponsorJobAnswer } from './job-answer.ts';
import { jobCosts } from './ledger.ts';
import { noSponsor, type SponsorReservations } from './reservations.ts';
import type { JobKind, SponsorJob, SponsorJobs } from './sponsor-jobs.ts';
import type { SponsorDirectory } from './sponsors.ts';
import { noFeeSponsor } from './sweeps.ts';

/** The jobs the paymaster routes show (a sweep's are shown with their sweep). */
const PAYMASTER_KINDS: readonly JobKind[] = ['paymaster', 'activation'];

export interface PaymasterDeps {
  db: Kysely<Database>;
  jobs: SponsorJobs;
  sponsors: SponsorDirectory;
  reservations: SponsorReservations;
  feeSponsorOf(chain: ChainName): FeeSponsor | undefined;
  /** The key of `from`, proven as a send proves it (its password, or the private key itself). */
  provenKey(caller: Caller, proof: SigningProof, from: string): Promise<string>;
  coin(chain: ChainName, network: Network): { decimals: number; symbol: string };
  /** A job was made: run it soon. */
  wakeRunner(): void;
}

/** Where a job's end is told, signed with `secret`. */
export interface JobCallback {
  url: string;
  secret: string;
}

/**
 * Chaingateway's paymaster, on every chain whose family can sponsor: an estimate of what the sponsor
 * would pay, and a request that reserves that from the sponsor's budget and the caller's allowance and
 * runs in the background as a job (its state read back by id, its end told to `callback_url`). Tron's
 * address activation is such a job too.
 */
export class Paymaster {
  constructor(private readonly deps: PaymasterDeps) {}

  /** The transfer and what its sponsor would pay; a transfer the pre-flight knows will fail is a 422. */
  async estimate(
    caller: Caller,
    request: PaymasterRequest,
  ): Promise<{ transfer: SponsoredTransfer; quote: SponsorQuote }> {
    const sponsor = this.feeSponsor(caller.chain);
    const sponsorRow = await this.deps.sponsors.get(caller.chain, caller.network);
    if (sponsorRow === null) throw noSponsor(caller.chain, caller.network);
    const transfer = await sponsor.transfer(caller.chain, caller.network, request);
    return {
      transfer,
      quote: await sponsor.quote(caller.chain, caller.network, transfer, sponsorRow.address),
    };
  }

  /** A sponsored transfer, reserved and queued; answers the job, pending. */
  async create(
    caller: Caller,
    request: PaymasterRequest,
    proof: SigningProof,
    callback: JobCallback | null,
  ): Promise<SponsorJob> {
    // A chain that cannot sponsor says so whatever key the caller proves (Bitcoin).
    this.feeSponsor(caller.chain);
    const ownerKey = await this.deps.provenKey(caller, proof, request.from);
    const { transfer, quote } = await this.estimate(caller, request);
    const job = await this.deps.reservations.reserve({
      ...caller,
      kind: 'paymaster',
      transfer,
      ownerKey,
      reserved: quote.maxCost,
      callbackUrl: callback?.url ?? null,
      callbackSecret: callback?.secret ?? null,
    });
    this.deps.wakeRunner();
    return job;
  }

  /**
   * Activates a new address on chain from the sponsor (Tron's `activated: true`), as a job listed with
   * the paymaster requests; refused (nothing reserved) where the family needs no activation.
   */
  async activate(caller: Caller, address: string): Promise<SponsorJob> {
    const sponsor = this.feeSponsor(caller.chain);
    if (sponsor.activate === undefined || sponsor.activationCost === undefined)
      throw new ApiError(422, `${caller.chain} addresses need no activation`);
    const { decimals, symbol } = this.deps.coin(caller.chain, caller.network);
    const job = await this.deps.reservations.reserve({
      ...caller,
      kind: 'activation',
      transfer: {
        type: symbol,
        from: address,
        to: address,
        contract: null,
        tokenId: null,
        units: '0',
        decimals,
      },
      ownerKey: null,
      reserved: await sponsor.activationCost(caller.chain, caller.network),
    });
    this.deps.wakeRunner();
    return job;
  }

  /** Whether addresses of `chain` can be activated by its sponsor. */
  activates(chain: ChainName): boolean {
    return this.deps.feeSponsorOf(chain)?.activate !== undefined;
  }

  /** A paymaster request or activation of the caller's. */
  async get(caller: Caller, id: string) {
    const job = await this.deps.jobs.get(caller, id);
    if (job === null || !PAYMASTER_KINDS.includes(job.kind))
      throw new ApiError(404, 'Paymaster request not found');
    return this.answer(job);
  }

  /** The caller's paymaster requests and activations, newest first. */
  async list(caller: Caller, page: number) {
    const { items, total } = await this.deps.jobs.list(caller, PAYMASTER_KINDS, page);
    return { items: await Promise.all(items.map((job) => this.answer(job))), total };
  }

  /** A job as the API answers it, with what its sponsor spent so far. */
  async answer(job: SponsorJob) {
    const costs = await jobCosts(this.deps.db, job.id);
    const spent = costs.reduce((sum, row) => sum + BigInt(row.units), 0n);
    return sponsorJobAnswer(job, spent, this.deps.coin(job.chain, job.network));
  }

  private feeSponsor(chain: ChainName): FeeSponsor {
    const sponsor = this.deps.feeSponsorOf(chain);
    if (sponsor === undefined) throw noFeeSponsor(chain);
    return sponsor;
  }
}
