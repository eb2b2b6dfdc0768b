import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from 'kysely';
import { describeDatabase } from '../config/summary.ts';
import { describeError } from '../describe-error.ts';
import type { Migrations } from './migrations/index.ts';
import { ensurePrivateDir, ensurePrivateFile } from './private-files.ts';
import type { Database } from './schema.ts';
import { OwnSchemaPostgresDialect } from './schema-introspector.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Postgres schema everything lives in, when not the default. */
  schema?: string;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Postgres only: run everything inside this schema (created if missing). Used to isolate tests. */
  pgSchema?: string;
  poolSize?: number;
}

export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length));
  return openPostgres(databaseUrl, options);
}

function openSqlite(file: string): Store {
  if (file !== ':memory:') {
    ensurePrivateDir(path.dirname(path.resolve(file)));
    ensurePrivateFile(file);
  }
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
  });
  const checkpointer = file === ':memory:' ? null : new WalCheckpointer(database, file);
  const close = async () => {
    await checkpointer?.close();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', close };
}

/**
 * Transactions take the write lock when they begin. A deferred `begin` that reads and then writes fails at
 * once with "database is locked" if another process (the admin CLI beside the server) wrote in between;
 * SQLite does not wait out the busy timeout for that. `begin immediate` waits for the lock instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * Kysely prepares every query anew; preparing is a large share of a small query's cost on SQLite. The
 * same few hundred SQL texts recur, so prepared statements are kept and reused (bounded, oldest dropped).
 */
function withStatementCache(database: SqliteDatabase.Database, limit = 500) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement === undefined) {
        statement = database.prepare(sqlText);
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

async function openPostgres(connectionString: string, options: StoreOptions): Promise<Store> {
  // Imported here: a gateway on SQLite never loads the driver (some 15 MiB).
  const { default: pg } = await import('pg');
  const { pgSchema } = options;
  if (pgSchema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(pgSchema)) {
    throw new Error(`invalid Postgres schema name ${pgSchema}`);
  }
  if (pgSchema !== undefined) {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${pgSchema}`);
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    // int8 columns hold block numbers and row ids, far below 2^53: read them as numbers, like SQLite does.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
    },
    max: options.poolSize ?? 10,
    ...(pgSchema === undefined ? {} : { options: `-c search_path=${pgSchema}` }),
  });
  // A connection the server closed (a restart, a failover) emits 'error', on the pool while idle and on
  // the client while checked out; unheard, either ends the process. The pool drops the connection and
  // connects anew when next needed, and the query that meets the outage reports it (503).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    ...(pgSchema === undefined ? {} : { schema: pgSchema }),
    close: () => db.destroy(),
  };
}

class StaticMigrationProvider implements MigrationProvider {
  constructor(private readonly migrations: Migrations) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...this.migrations };
  }
}

/**
 * Applies every pending one of `migrations` (the shared tables' and the families', `migrationList`);
 * throws with the failing migration's name.
 */
export async function migrateToLatest(store: Store, migrations: Migrations): Promise<void> {
  const { error, results } = await (await migratorOf(store, migrations)).migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error');
    // Without a failed migration, Kysely failed before running any (its own tables, its lock).
    const which = failed === undefined ? 'could not start' : `${failed.migrationName} failed`;
    throw new Error(`database migration ${which}: ${describeError(error)}`);
  }
}

/** Whether every one of `migrations` has run on the database. */
export async function haveRun(store: Store, migrations: Migrations): Promise<boolean> {
  const known = await (await migratorOf(store, migrations)).getMigrations();
  return known.every((migration) => migration.executedAt !== undefined);
}

async function migratorOf(store: Store, migrations: Migrations): Promise<Migrator> {
  // Name the schema: Kysely looks its tables up by name in every schema, and another schema's copy
  // (another app's, or a search_path set in DATABASE_URL) must not count as this one's.
  const schema = store.schema ?? (store.dialect === 'postgres' ? await currentSchema(store) : undefined);
  return new Migrator({
    db: store.db,
    provider: new StaticMigrationProvider(migrations),
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
}

/**
 * One round trip before anything else, so that a database that cannot be reached is named by where it is
 * (never the user or password) and the setting that points there.
 */
export async function assertReachable(store: Store, databaseUrl: string): Promise<void> {
  try {
    await pingStore(store);
  } catch (error) {
    throw unreachable(databaseUrl, error);
  }
}

/** The database named by where it is (never the user or password), the setting, and why it failed. */
export function unreachable(databaseUrl: string, error: unknown): Error {
  const where = describeDatabase(databaseUrl);
  return new Error(`cannot reach the database (${where}, set by DATABASE_URL): ${describeError(error)}`);
}

/** The schema unqualified tables are created in: the first of the connection's search_path. */
async function currentSchema(store: Store): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('no schema of the search_path exists: create it or check DATABASE_URL');
  return schema;
}

/** Cheap round trip used by /readyz. */
export async function pingStore(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db);
}

/** `count(*)` is a bigint string on Postgres and a number on SQLite. */
export function toCount(value: string | number | bigint | null | undefined): number {
  return Number(value ?? 0);
}
