import type { Kysely, Migration } from 'kysely';

/**
 * Requests per user and UTC day, for the Account page's chart of use against the quota. The request meter
 * adds to it in the same batched write as `quota_usage` (one more statement per user per interval, no
 * write per request); a day is its date text, `2026-11-28`.
 */
export const requestDays: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('request_days')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('request_days_pk', ['user_id', 'day'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('request_days').execute();
  },
};
