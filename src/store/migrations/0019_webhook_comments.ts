import type { Kysely, Migration } from 'kysely';

/** A subscription may ask for transfers carrying one comment (TON), as payments to one address are told apart. */
export const webhookComments: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('webhooks').addColumn('comment', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('webhooks').dropColumn('comment').execute();
  },
};
