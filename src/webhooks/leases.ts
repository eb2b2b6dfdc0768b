import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

/**
 * A named lease in the database, as one holder sees it: whoever holds an unexpired lease does the job
 * (one watcher per chain and network across all instances); a holder that dies loses it when it expires,
 * and another takes over.
 */
export class DatabaseLease {
  constructor(
    readonly name: string,
    private readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes the lease when it is free or expired, or keeps it when this holder has it. */
  async acquire(db: Kysely<Database>, now: Date): Promise<boolean> {
    const expires = this.expiresAt(now);
    await db
      .insertInto('leases')
      .values({ name: this.name, holder: this.holder, expires_at: expires })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const result = await db
      .updateTable('leases')
      .set({ holder: this.holder, expires_at: expires })
      .where('name', '=', this.name)
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('expires_at', '<', now.toISOString())]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Renews a lease this holder has; false when another instance has taken it over. */
  async renew(db: Kysely<Database>, now: Date): Promise<boolean> {
    const result = await db
      .updateTable('leases')
      .set({ expires_at: this.expiresAt(now) })
      .where('name', '=', this.name)
      .where('holder', '=', this.holder)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(db: Kysely<Database>): Promise<void> {
    await db.deleteFrom('leases').where('name', '=', this.name).where('holder', '=', this.holder).execute();
  }

  private expiresAt(now: Date): string {
    return new Date(now.getTime() + this.ttlMs).toISOString();
  }
}
