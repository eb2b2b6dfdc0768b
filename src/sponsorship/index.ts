import type { QuotaService } from '../accounts/quotas.ts';
import type { FamilyModule, FamilyParts } from '../chains/family.ts';
import type { FeeSponsor } from '../chains/fee-sponsor.ts';
import type { Caller } from '../chains/ports.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { PlanConfig } from '../config.ts';
import type { SigningProof } from '../custody/address-keys.ts';
import type { MasterKey } from '../custody/master-key.ts';
import type { Logger } from '../logger.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Store } from '../store/store.ts';
import type { WebhookSender } from '../webhooks/delivery-attempt.ts';
import { CallbackDeliveries, type CallbackTable } from './callbacks.ts';
import { SponsorJobRunner } from './job-runner.ts';
import { Paymaster } from './paymaster.ts';
import { type AllowanceLeft, SponsorReservations } from './reservations.ts';
import { SponsorJobs } from './sponsor-jobs.ts';
import { SponsorDirectory } from './sponsors.ts';
import { SweepJobs, sweptAddress } from './sweeps.ts';

export interface SponsorshipDeps {
  store: Store;
  masterKey: MasterKey;
  quotas: QuotaService;
  registry: ChainRegistry;
  familyOf(chain: ChainName): FamilyModule | undefined;
  familyParts: ReadonlyMap<string, FamilyParts>;
  provenKey(caller: Caller, proof: SigningProof, address: string): Promise<string>;
  addressesOf(caller: Caller): Promise<string[]>;
  now?: () => Date;
}

/** Fee sponsorship, built once per context: the sponsors, the jobs and their reservations, the use cases. */
export class Sponsorship {
  readonly sponsors: SponsorDirectory;
  readonly jobs: SponsorJobs;
  readonly reservations: SponsorReservations;
  readonly paymaster: Paymaster;
  readonly sweeps: SweepJobs;
  /** The runners of this process, woken when a job is made here. */
  private readonly runners = new Set<SponsorJobRunner>();

  constructor(private readonly deps: SponsorshipDeps) {
    const { store, masterKey, quotas } = deps;
    const coin = (chain: ChainName, network: Network) => {
      const adapter = deps.registry.get(chain, network);
      return { decimals: adapter.nativeDecimals, symbol: adapter.nativeSymbol };
    };
    const feeSponsorOf = (chain: ChainName) => this.feeSponsorOf(chain);
    this.sponsors = new SponsorDirectory(store.db, masterKey, deps.now);
    this.jobs = new SponsorJobs(store.db, masterKey, deps.now);
    this.reservations = new SponsorReservations({
      db: store.db,
      dialect: store.dialect,
      jobs: this.jobs,
      sponsors: this.sponsors,
      quotas,
      coin,
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
    const wakeRunner = () => {
      for (const runner of this.runners) runner.wakeUp();
    };
    this.paymaster = new Paymaster({
      db: store.db,
      jobs: this.jobs,
      sponsors: this.sponsors,
      reservations: this.reservations,
      feeSponsorOf,
      provenKey: deps.provenKey,
      coin,
      wakeRunner,
    });
    this.sweeps = new SweepJobs({
      db: store.db,
      masterKey,
      jobs: this.jobs,
      sponsors: this.sponsors,
      reservations: this.reservations,
      feeSponsorOf,
      addressesOf: deps.addressesOf,
      provenKey: deps.provenKey,
      transferType: (chain, token) => {
        const types = deps.familyOf(chain)?.transferTypes(chain);
        return (token ? types?.fungible : types?.native) ?? '';
      },
      wakeRunner,
      ...(deps.now === undefined ? {} : { now: deps.now }),
    });
  }

  /** What is left of the user's allowance of sponsored fees on every served chain and network that has one. */
  allowances(userId: string, knownPlan?: PlanConfig): MaybePromise<AllowanceLeft[]> {
    if (knownPlan === undefined) {
      return this.deps.quotas.planOf(userId).then((plan) => this.allowances(userId, plan));
    }
    const plan = knownPlan;
    // Most plans sponsor nothing: no chain needs looking at, and no query is made.
    if (plan.sponsored === null) return [];
    const { registry } = this.deps;
    const places = registry
      .chains()
      .filter((chain) => this.feeSponsorOf(chain) !== undefined)
      .flatMap((chain) => registry.networksOf(chain).map((network) => ({ chain, network })));
    return this.reservations.allowances(userId, places, plan);
  }

  /** How the family of `chain` sponsors; undefined where it cannot. */
  feeSponsorOf(chain: ChainName): FeeSponsor | undefined {
    const family = this.deps.familyOf(chain);
    return family === undefined ? undefined : this.deps.familyParts.get(family.name)?.sponsor;
  }

  /**
   * A runner for this process's background roles, sending callbacks through `sender`, holding each job
   * under a lease of `leaseMs` (SPONSOR_JOB_LEASE_SECONDS).
   */
  runner(sender: WebhookSender, logger: Logger, leaseMs?: number): SponsorJobRunner {
    const runner = new SponsorJobRunner({
      jobs: this.jobs,
      sponsors: this.sponsors,
      sweeps: this.sweeps,
      callbacks: new CallbackDeliveries(this.deps.store.db, sender, (table, id) =>
        this.callbackBody(table, id),
      ),
      feeSponsorOf: (chain) => this.feeSponsorOf(chain),
      logger,
      ...(leaseMs === undefined ? {} : { leaseMs }),
    });
    this.runners.add(runner);
    return runner;
  }

  /** A sweep as the API answers it. */
  async sweepAnswer(found: NonNullable<Awaited<ReturnType<SweepJobs['get']>>>) {
    const { sweep, jobs } = found;
    return {
      id: sweep.id,
      to: sweep.to,
      contractaddress: sweep.contract,
      status: sweep.status,
      addresses: jobs.map(sweptAddress),
      skipped: sweep.skipped,
      callback_url: sweep.callbackUrl,
      created_at: sweep.createdAt,
      updated_at: sweep.updatedAt,
    };
  }

  private async callbackBody(table: CallbackTable, id: string): Promise<unknown> {
    if (table === 'sweeps') {
      const found = await this.sweeps.byId(id);
      return found === null ? { id } : this.sweepAnswer(found);
    }
    const job = await this.jobs.byId(id);
    return job === null ? { id } : this.paymaster.answer(job);
  }
}
