import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A number per user (1, 2, 3 ...), the integer `user_id` Chaingateway shows in the history; user ids stay
 * UUIDs everywhere else. Existing users are numbered in the order they were created. New numbers come from
 * a counter row that the creating transaction increments, so concurrent creators wait for each other
 * instead of colliding; the unique index is the last guard.
 */
export const userNumbers: Migration = {
  async up(db: Kysely<unknown>) {
    // Nullable only because SQLite cannot add a NOT NULL column without a default; every user gets one.
    await db.schema.alterTable('users').addColumn('number', 'integer').execute();
    // The same statement on SQLite (3.33+) and Postgres; the id orders users created in the same instant.
    await sql`
      update users set number = ranked.n
      from (select id, row_number() over (order by created_at, id) as n from users) as ranked
      where ranked.id = users.id
    `.execute(db);
    await db.schema.createIndex('users_number').on('users').column('number').unique().execute();

    await db.schema
      .createTable('counters')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'integer', (c) => c.notNull())
      .execute();
    await sql`insert into counters (name, value) select 'users.number', coalesce(max(number), 0) from users`.execute(
      db,
    );
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('counters').execute();
    await db.schema.dropIndex('users_number').execute();
    await db.schema.alterTable('users').dropColumn('number').execute();
  },
};
