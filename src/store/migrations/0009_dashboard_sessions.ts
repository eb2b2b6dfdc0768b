import type { Kysely, Migration } from 'kysely';
import { createIndex } from './create-index.ts';

/**
 * The dashboard's sign-in: a password per user (an scrypt hash; users the admin CLI made without one
 * cannot sign in until it sets one) and the sessions it opens. A session row holds only SHA-256 hashes
 * of the cookie's secret and of its CSRF token, so a copy of the database opens no session.
 */
export const dashboardSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('user_passwords')
      .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('csrf_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await createIndex(db, 'sessions_by_user', 'sessions', ['user_id']);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('sessions').execute();
    await db.schema.dropTable('user_passwords').execute();
  },
};
