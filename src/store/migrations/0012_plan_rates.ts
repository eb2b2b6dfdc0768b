import type { Kysely, Migration } from 'kysely';

/**
 * A plan's rate limit per API token: `rate_requests` per `rate_seconds`, both null for none. Existing plans
 * get none here; the configured plans are written again at every start, with their rates.
 */
export const planRates: Migration = {
  async up(db: Kysely<unknown>) {
    // One column per statement: SQLite adds one at a time.
    await db.schema.alterTable('plans').addColumn('rate_requests', 'integer').execute();
    await db.schema.alterTable('plans').addColumn('rate_seconds', 'integer').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('plans').dropColumn('rate_seconds').execute();
    await db.schema.alterTable('plans').dropColumn('rate_requests').execute();
  },
};
