import type { Kysely } from 'kysely';

/**
 * Creates the plain index `name` over `columns` of `table`, in that order. The statement is the one the
 * schema builder writes for `createIndex(name).on(table).columns(columns)`, so migrations that already ran
 * keep the schema they made.
 */
export function createIndex(
  db: Kysely<unknown>,
  name: string,
  table: string,
  columns: string[],
): Promise<void> {
  return db.schema.createIndex(name).on(table).columns(columns).execute();
}
