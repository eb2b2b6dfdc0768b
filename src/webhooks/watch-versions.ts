import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.ts';

/**
 * The change version of each (chain, network)'s webhooks: every webhook change stamps the row with a
 * freshly bumped version in the same transaction, and watchers reload the rows above the version they
 * last saw. The upsert takes a row lock, so versions become visible in order.
 */

/** Increments and returns the (chain, network) version, inside the caller's transaction. */
export async function bumpWatchVersion(
  trx: Transaction<Database>,
  chain: string,
  network: string,
): Promise<number> {
  await trx
    .insertInto('watch_versions')
    .values({ chain, network, version: 1 })
    .onConflict((oc) =>
      oc
        .columns(['chain', 'network'])
        .doUpdateSet((eb) => ({ version: eb('watch_versions.version', '+', 1) })),
    )
    .execute();
  return readWatchVersion(trx, chain, network);
}

/** The latest (chain, network) version; 0 before any webhook was made there. */
export async function readWatchVersion(
  db: Kysely<Database>,
  chain: string,
  network: string,
): Promise<number> {
  const row = await db
    .selectFrom('watch_versions')
    .select('version')
    .where('chain', '=', chain)
    .where('network', '=', network)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}
