import type { Kysely, Migration } from 'kysely';

/**
 * Wrong-password counters (src/custody/password-throttle.ts), one row per throttled subject: an address
 * (`address:<user>|<chain>|<network>|<address>`) or a user (`user:<id>`). In the database so a lockout
 * survives a restart and holds across every instance on one Postgres.
 */
export const passwordThrottle: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('password_failures')
      .addColumn('subject', 'text', (c) => c.primaryKey())
      // Wrong passwords in the window that ends at window_ends_at; back to 0 when a lockout begins.
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('window_ends_at', 'text', (c) => c.notNull())
      // Lockouts in a row: each lasts twice the one before, up to the configured cap.
      .addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('locked_until', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('password_failures').execute();
  },
};
