import type { Kysely } from 'kysely';
import type { KeyHolder } from '../chains/fee-sponsor.ts';
import { type ChainName, type Network, networkNamed } from '../chains/types.ts';
import type { QuotaPeriod } from '../config.ts';
import type { MasterKey } from '../custody/master-key.ts';
import type { Database, SponsorsTable } from '../store/schema.ts';

/** A chain and network's sponsor as the operator set it (its key stays sealed). */
export interface Sponsor {
  chain: ChainName;
  network: Network;
  userId: string;
  address: string;
  /** Base units of the coin it may spend per period; null: no limit. */
  budget: bigint | null;
  period: QuotaPeriod;
}

/**
 * The sponsor of each chain and network: one custodial address of the operator's, named with the admin
 * CLI. Its key is kept sealed with the master key, so that the background jobs can sign with it without
 * a password (the CLI opened it once with the address's password, proving the operator owns it).
 */
export class SponsorDirectory {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly masterKey: MasterKey,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async set(sponsor: Sponsor, privateKey: string): Promise<void> {
    const row = {
      user_id: sponsor.userId,
      address: sponsor.address,
      key_sealed: this.masterKey.seal(
        privateKey,
        keyContext(sponsor.chain, sponsor.network, sponsor.address),
      ),
      budget: sponsor.budget === null ? null : sponsor.budget.toString(),
      period: sponsor.period,
      updated_at: this.now().toISOString(),
    };
    await this.db
      .insertInto('sponsors')
      .values({ chain: sponsor.chain, network: sponsor.network, ...row })
      .onConflict((oc) => oc.columns(['chain', 'network']).doUpdateSet(row))
      .execute();
  }

  async remove(chain: ChainName, network: Network): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sponsors')
      .where('chain', '=', chain)
      .where('network', '=', network)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async get(chain: ChainName, network: Network, db: Kysely<Database> = this.db): Promise<Sponsor | null> {
    const row = await db
      .selectFrom('sponsors')
      .selectAll()
      .where('chain', '=', chain)
      .where('network', '=', network)
      .executeTakeFirst();
    return row === undefined ? null : sponsorOf(row);
  }

  async list(): Promise<Sponsor[]> {
    const rows = await this.db
      .selectFrom('sponsors')
      .selectAll()
      .orderBy('chain')
      .orderBy('network')
      .execute();
    return rows.map(sponsorOf);
  }

  /** The sponsor's address and key, for a job that signs with it. */
  async keyHolder(chain: ChainName, network: Network): Promise<KeyHolder | null> {
    const row = await this.db
      .selectFrom('sponsors')
      .select(['address', 'key_sealed'])
      .where('chain', '=', chain)
      .where('network', '=', network)
      .executeTakeFirst();
    if (row === undefined) return null;
    return {
      address: row.address,
      privateKey: this.masterKey.open(row.key_sealed, keyContext(chain, network, row.address)),
    };
  }
}

function keyContext(chain: string, network: string, address: string): string {
  return `sponsor:${chain}:${network}:${address}`;
}

function sponsorOf(row: SponsorsTable): Sponsor {
  return {
    chain: row.chain,
    network: networkNamed(row.network),
    userId: row.user_id,
    address: row.address,
    budget: row.budget === null ? null : BigInt(row.budget),
    period: row.period === 'day' ? 'day' : row.period === 'year' ? 'year' : 'month',
  };
}
