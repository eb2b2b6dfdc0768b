import type { Kysely, Migration } from 'kysely';
import { createIndex } from './create-index.ts';

/**
 * Webhook subscriptions, the watchers' cursors and recent blocks, the outbox of notifications with their
 * delivery attempts, events waiting for confirmations, and the leases that keep one watcher per chain.
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('from_address', 'text')
      .addColumn('to_address', 'text')
      .addColumn('contract_address', 'text')
      .addColumn('token_id', 'text')
      .addColumn('type', 'text')
      .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notify_reverted', 'integer', (c) => c.notNull().defaultTo(0))
      /** 'none' (the spec: a failed notification waits for a manual retry) or 'backoff'. */
      .addColumn('retry_policy', 'text', (c) => c.notNull().defaultTo('none'))
      /** Signing secret, sealed with the server's master key; the previous one signs too until it expires. */
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('previous_secret_sealed', 'text')
      .addColumn('previous_secret_expires_at', 'text')
      .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('is_invalid', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('invalid_reason', 'text')
      /** Change counter per (chain, network): watchers reload only what changed since they last looked. */
      .addColumn('change_version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .execute();
    await createIndex(db, 'webhooks_owner', 'webhooks', ['user_id', 'chain', 'network']);
    await createIndex(db, 'webhooks_changes', 'webhooks', ['chain', 'network', 'change_version']);

    await db.schema
      .createTable('watch_versions')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('watch_versions_pk', ['chain', 'network'])
      .execute();

    await db.schema
      .createTable('chain_cursors')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('chain_cursors_pk', ['chain', 'network'])
      .execute();

    /** The last blocks a watcher processed, to find the common ancestor after a reorg. */
    await db.schema
      .createTable('chain_blocks')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('parent_hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('chain_blocks_pk', ['chain', 'network', 'block_number'])
      .execute();

    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      /** 'transfer' or 'reverted'. */
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('log_index', 'integer', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      /** pending -> delivering -> delivered | failed (| pending again on retry). */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claim_expires_at', 'text')
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('block_time', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .execute();
    // One notification per subscription, transfer, event and block: a replayed block never sends twice,
    // while a transfer re-included in another block after a reorg is a new event.
    await notificationsOnce(db).execute();
    await createIndex(db, 'notifications_due', 'notifications', ['status', 'next_attempt_at']);
    await createIndex(db, 'notifications_owner', 'notifications', [
      'user_id',
      'chain',
      'network',
      'status',
      'created_at',
    ]);
    await createIndex(db, 'notifications_block', 'notifications', ['chain', 'network', 'block_number']);

    await db.schema
      .createTable('notification_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('notification_id', 'text', (c) =>
        c.notNull().references('notifications.id').onDelete('cascade'),
      )
      .addColumn('attempted_at', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('error', 'text')
      .execute();
    await createIndex(db, 'notification_attempts_of', 'notification_attempts', ['notification_id']);

    /** Matched transfers waiting for their subscription's confirmations. */
    await db.schema
      .createTable('pending_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('ready_at_block', 'bigint', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .execute();
    await createIndex(db, 'pending_events_ready', 'pending_events', ['chain', 'network', 'ready_at_block']);

    /** Leases: one watcher per (chain, network) across all gateway instances. */
    await db.schema
      .createTable('leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * The once-only index of notifications as this migration makes it; 0010 narrows it to live transfers, and
 * its `down` puts this one back.
 */
export function notificationsOnce(db: Kysely<unknown>) {
  return db.schema
    .createIndex('notifications_once')
    .on('notifications')
    .columns(['webhook_id', 'txid', 'log_index', 'event', 'block_hash'])
    .unique();
}
