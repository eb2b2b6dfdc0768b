import type { Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';

/** Where costs are counted: a sponsor's chain and network, and one user there or every user. */
export interface LedgerPlace {
  chain: ChainName;
  network: Network;
  userId?: string;
}

/**
 * What a place has spent since `since` plus what its open jobs hold reserved, in the coin's base units:
 * the amount a new reservation is checked against. Sums are made here, in bigint, because amounts are
 * kept as decimal text (exact in both databases).
 */
export async function committed(db: Kysely<Database>, place: LedgerPlace, since: Date): Promise<bigint> {
  let spent = db
    .selectFrom('sponsor_ledger')
    .select('units')
    .where('chain', '=', place.chain)
    .where('network', '=', place.network)
    .where('created_at', '>=', since.toISOString());
  let reserved = db
    .selectFrom('sponsor_jobs')
    .select('reserved as units')
    .where('chain', '=', place.chain)
    .where('network', '=', place.network)
    .where('status', 'in', ['pending', 'processing']);
  if (place.userId !== undefined) {
    spent = spent.where('user_id', '=', place.userId);
    reserved = reserved.where('user_id', '=', place.userId);
  }
  const rows = [...(await spent.execute()), ...(await reserved.execute())];
  return rows.reduce((sum, row) => sum + BigInt(row.units), 0n);
}

/** What the ledger holds for one job: each cost its sponsor bore. */
export async function jobCosts(db: Kysely<Database>, jobId: string) {
  return db
    .selectFrom('sponsor_ledger')
    .select(['what', 'units', 'txid'])
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .execute();
}
