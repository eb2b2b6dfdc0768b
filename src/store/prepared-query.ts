import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A query built and compiled once, run with new parameters: for the few statements every request of a
 * route runs, where building and compiling the query each time costs more than running it. The
 * parameters are given in the order their placeholders appear in the SQL (the order of the `where`s for
 * the simple queries this is for); build the query with placeholder values of the same types.
 */
export class PreparedQuery<Row> {
  readonly #compiled: CompiledQuery<Row>;

  constructor(query: Compilable<Row>) {
    this.#compiled = query.compile();
  }

  async first(db: Kysely<Database>, parameters: readonly unknown[]): Promise<Row | undefined> {
    if (parameters.length !== this.#compiled.parameters.length)
      throw new Error(`the query takes ${this.#compiled.parameters.length} parameters`);
    const { rows } = await db.executeQuery<Row>({ ...this.#compiled, parameters });
    return rows[0];
  }
}
