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
 * the amount a new reservation is checked against. An open job counts once, as the larger of its
 * reservation and what it has spent so far (a job midway has both ledger rows and its reservation, which
 * already covers them). Sums are made here, in bigint, because amounts are kept as decimal text (exact in
 * both databases).
 */
export async function committed(db: Kysely<Database>, place: LedgerPlace, since: Date): Promise<bigint> {
  let spent = db
    .selectFrom('sponsor_ledger')
    .select(['job_id', 'units'])
    .where('chain', '=', place.chain)
    .where('network', '=', place.network)
    .where('created_at', '>=', since.toISOString());
  let open = db
    .selectFrom('sponsor_jobs')
    .select(['id', 'reserved'])
    .where('chain', '=', place.chain)
    .where('network', '=', place.network)
    .where('status', 'in', ['pending', 'processing']);
  if (place.userId !== undefined) {
    spent = spent.where('user_id', '=', place.userId);
    open = open.where('user_id', '=', place.userId);
  }
  // The open jobs first: one that ends before the ledger is read is still counted as the larger of both.
  const reservedOf = new Map((await open.execute()).map((job) => [job.id, BigInt(job.reserved)]));
  const spentOf = new Map<string, bigint>();
  let total = 0n;
  for (const row of await spent.execute()) {
    const units = BigInt(row.units);
    if (reservedOf.has(row.job_id)) spentOf.set(row.job_id, (spentOf.get(row.job_id) ?? 0n) + units);
    else total += units;
  }
  for (const [id, reserved] of reservedOf) {
    const soFar = spentOf.get(id) ?? 0n;
    total += soFar > reserved ? soFar : reserved;
  }
  return total;
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
