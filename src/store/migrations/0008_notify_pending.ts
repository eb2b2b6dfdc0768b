import type { Kysely, Migration } from 'kysely';

/** A subscription may ask to hear of a matching transfer while it is still unconfirmed (Bitcoin's mempool). */
export const notifyPending: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('webhooks')
      .addColumn('notify_pending', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhooks').dropColumn('notify_pending').execute();
  },
};
