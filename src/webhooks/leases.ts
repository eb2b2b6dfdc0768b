import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

/**
 * A named lease in the database: whoever holds an unexpired lease does the job (one watcher per chain
 * and network across all instances); a holder that dies loses it when it expires, and another takes over.
 */
export async function acquireLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  ttlMs: number,
  now: Date,
): Promise<boolean> {
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  await db
    .insertInto('leases')
    .values({ name, holder, expires_at: expires })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const result = await db
    .updateTable('leases')
    .set({ holder, expires_at: expires })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<', now.toISOString())]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Renews a lease this holder has; false when another instance has taken it over. */
export async function renewLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  ttlMs: number,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('leases')
    .set({ expires_at: new Date(now.getTime() + ttlMs).toISOString() })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
}
