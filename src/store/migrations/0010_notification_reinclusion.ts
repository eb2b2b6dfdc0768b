import { type Kysely, type Migration, sql } from 'kysely';
import { notificationsOnce } from './0004_webhooks.ts';

/**
 * A transfer that a reorg removed and the new chain includes again is notified again, even in the very
 * block it was in before (the chain switched back to that fork). Until now one index allowed a single
 * notification per (webhook, transfer, event, block hash), so that second inclusion was never told.
 *
 * - `left_chain_at`: set on a `transfer` (or `pending`) notification when its transfer left the chain;
 *   such a row no longer holds its place in the once-only index, so a re-inclusion is a new notification.
 * - `reverts_id`: on a `reverted` notification, the `transfer` notification it takes back: one `reverted`
 *   per notified inclusion, however often the same transfer comes and goes.
 */
export const notificationReinclusion: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('notifications').addColumn('left_chain_at', 'text').execute();
    await db.schema.alterTable('notifications').addColumn('reverts_id', 'text').execute();
    // Rows written before: a transfer cancelled by a reorg, or one with a `reverted` twin, has left the chain.
    await sql`
      update notifications set left_chain_at = updated_at
      where event = 'transfer' and (
        status = 'cancelled' or exists (
          select 1 from notifications r
          where r.event = 'reverted' and r.webhook_id = notifications.webhook_id and r.txid = notifications.txid
            and r.log_index = notifications.log_index and r.block_hash = notifications.block_hash))
    `.execute(db);
    await sql`
      update notifications set reverts_id = (
        select t.id from notifications t
        where t.event = 'transfer' and t.webhook_id = notifications.webhook_id and t.txid = notifications.txid
          and t.log_index = notifications.log_index and t.block_hash = notifications.block_hash)
      where event = 'reverted'
    `.execute(db);
    await db.schema.dropIndex('notifications_once').execute();
    // One live notification per subscription, transfer, event and block: a replayed block adds nothing.
    await notificationsOnce(db).where(sql<boolean>`event <> 'reverted' and left_chain_at is null`).execute();
    await db.schema
      .createIndex('notifications_reverted_once')
      .on('notifications')
      .column('reverts_id')
      .unique()
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('notifications_reverted_once').execute();
    await db.schema.dropIndex('notifications_once').execute();
    await notificationsOnce(db).execute();
    await db.schema.alterTable('notifications').dropColumn('reverts_id').execute();
    await db.schema.alterTable('notifications').dropColumn('left_chain_at').execute();
  },
};
