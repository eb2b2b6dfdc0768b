import type { Kysely, Migration } from 'kysely';
import { createIndex } from './create-index.ts';

/** Users, plans, subscriptions, API tokens and quota counters. */
export const foundation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('plans')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('quota_webhooks', 'integer')
      .addColumn('quota_addresses', 'integer')
      .addColumn('quota_requests', 'integer')
      .addColumn('quota_transactions', 'integer')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('subscriptions')
      .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('plan', 'text', (c) => c.notNull().references('plans.name'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('is_yearly', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('starts_at', 'text', (c) => c.notNull())
      .addColumn('ends_at', 'text')
      .addColumn('payment_method', 'text')
      .addColumn('crypto_currency', 'text')
      .addColumn('crypto_address', 'text')
      .addColumn('eur_amount', 'text')
      .addColumn('crypto_amount', 'text')
      .addColumn('qr_code', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await createIndex(db, 'api_tokens_user', 'api_tokens', ['user_id']);

    await db.schema
      .createTable('quota_usage')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('period_start', 'text', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('transactions', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('quota_usage_pk', ['user_id', 'period_start'])
      .execute();
  },
};
