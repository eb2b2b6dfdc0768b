import type { Kysely } from 'kysely';
import { periodStart } from '../accounts/periods.ts';
import type { QuotaService } from '../accounts/quotas.ts';
import { formatAmount, parseAmount } from '../chains/amount.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { PlanConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';
import { committed } from './ledger.ts';
import type { NewJob, SponsorJob, SponsorJobs } from './sponsor-jobs.ts';
import type { SponsorDirectory } from './sponsors.ts';

export interface ReservationDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  jobs: SponsorJobs;
  sponsors: SponsorDirectory;
  quotas: QuotaService;
  /** The decimals and symbol of a chain's coin. */
  coin(chain: ChainName, network: Network): { decimals: number; symbol: string };
  now?: () => Date;
}

/** What a user's plan lets the sponsors pay on one chain and network this period, in the coin's units. */
export interface AllowanceLeft {
  chain: ChainName;
  network: Network;
  symbol: string;
  allowance: string;
  spent: string;
  left: string;
}

export function noSponsor(chain: ChainName, network: Network): ApiError {
  return new ApiError(
    503,
    `No sponsor pays fees on ${chain} ${network}: the operator names one with \`npm run -s cli -- sponsor set\``,
  );
}

/**
 * Reserves what a job may cost from its sponsor's budget and its user's allowance, and makes the job, in
 * one transaction: concurrent reservations, on any instance, count one after the other (Postgres: the
 * sponsor's row is locked; SQLite runs one transaction at a time). What the job did not spend is given
 * back when it ends.
 */
export class SponsorReservations {
  private readonly now: () => Date;

  constructor(private readonly deps: ReservationDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async reserve(job: NewJob): Promise<SponsorJob> {
    const { db, dialect, jobs } = this.deps;
    return db.transaction().execute(async (trx) => {
      if (dialect === 'postgres') {
        await trx
          .selectFrom('sponsors')
          .select('chain')
          .where('chain', '=', job.chain)
          .where('network', '=', job.network)
          .forUpdate()
          .execute();
      }
      await this.assertBudget(trx, job);
      await this.assertAllowance(trx, job);
      return jobs.insert(trx, job);
    });
  }

  /**
   * The user's allowance on every chain and network its plan names, with what is left of it. `knownPlan`:
   * the plan the request was authenticated with, saving its query.
   */
  async allowances(
    userId: string,
    places: readonly { chain: ChainName; network: Network }[],
    knownPlan?: PlanConfig,
  ) {
    const plan = knownPlan ?? (await this.deps.quotas.planOf(userId));
    if (plan.sponsored === null) return [];
    const since = periodStart(plan.period, this.now());
    const left: AllowanceLeft[] = [];
    for (const { chain, network } of places) {
      const allowed = plan.sponsored?.[chain];
      if (allowed === undefined) continue;
      const { decimals, symbol } = this.deps.coin(chain, network);
      const units = parseAmount(allowed, decimals);
      const spent = await committed(this.deps.db, { chain, network, userId }, since);
      const rest = units > spent ? units - spent : 0n;
      left.push({
        chain,
        network,
        symbol,
        allowance: formatAmount(units, decimals),
        spent: formatAmount(spent, decimals),
        left: formatAmount(rest, decimals),
      });
    }
    return left;
  }

  private async assertBudget(trx: Kysely<Database>, job: NewJob): Promise<void> {
    const sponsor = await this.deps.sponsors.get(job.chain, job.network, trx);
    if (sponsor === null) throw noSponsor(job.chain, job.network);
    if (sponsor.budget === null) return;
    const used = await committed(trx, job, periodStart(sponsor.period, this.now()));
    if (used + job.reserved > sponsor.budget) {
      const { decimals, symbol } = this.deps.coin(job.chain, job.network);
      const left = sponsor.budget > used ? sponsor.budget - used : 0n;
      throw new ApiError(
        422,
        `The sponsor's budget for this ${sponsor.period} is spent: ${formatAmount(left, decimals)} ${symbol} left, this transfer may cost ${formatAmount(job.reserved, decimals)} ${symbol}`,
      );
    }
  }

  private async assertAllowance(trx: Kysely<Database>, job: NewJob): Promise<void> {
    const plan = await this.deps.quotas.planOf(job.userId, trx);
    const { decimals, symbol } = this.deps.coin(job.chain, job.network);
    const allowed = plan.sponsored?.[job.chain];
    if (allowed === undefined) {
      throw new ApiError(422, `Your plan ${plan.name} has no allowance of sponsored fees on ${job.chain}`);
    }
    const used = await committed(trx, { ...job, userId: job.userId }, periodStart(plan.period, this.now()));
    const units = parseAmount(allowed, decimals);
    if (used + job.reserved > units) {
      const left = units > used ? units - used : 0n;
      throw new ApiError(
        422,
        `Your plan's allowance of sponsored fees on ${job.chain} is spent for this ${plan.period}: ${formatAmount(left, decimals)} ${symbol} left, this transfer may cost ${formatAmount(job.reserved, decimals)} ${symbol}`,
      );
    }
  }
}
