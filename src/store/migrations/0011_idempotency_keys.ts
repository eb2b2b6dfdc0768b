import type { Kysely, Migration } from 'kysely';
import { createIndex } from './create-index.ts';

/**
 * Idempotency keys (src/services/idempotency-keys.ts): one row per user and key, claimed by the request
 * that first used it. The stored answer is sealed with the master key (an answer may carry a new
 * address's key or a webhook's secret), and the request's fingerprint is an HMAC, so a copy of the
 * database reveals neither. A send's history row names the key's row it ran under, so a request cut short
 * by a restart can be answered from the history instead of sending again.
 */
export const idempotencyKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      // One id per use of a key: a key used again once expired gets a new row, and a new id.
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      // `running` while a request holds it, `done` once its answer is stored.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_sealed', 'text')
      // Set just before a transaction goes to the node: from then on the request is never run again.
      .addColumn('send_started_at', 'text')
      // The running request's lease: renewed while it runs; one that lapses was cut short (a restart).
      .addColumn('lease_token', 'text')
      .addColumn('locked_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
      .execute();
    await createIndex(db, 'idempotency_keys_by_expiry', 'idempotency_keys', ['expires_at']);
    await db.schema.alterTable('transactions').addColumn('idempotency_id', 'text').execute();
    await createIndex(db, 'transactions_by_idempotency_id', 'transactions', ['idempotency_id']);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('transactions_by_idempotency_id').execute();
    await db.schema.alterTable('transactions').dropColumn('idempotency_id').execute();
    await db.schema.dropTable('idempotency_keys').execute();
  },
};
