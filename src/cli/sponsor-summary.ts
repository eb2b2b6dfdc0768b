import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';

/** How long `config check` waits for a Postgres database before it says the sponsors were not read. */
const CONNECT_TIMEOUT_MS = 3000;

interface SponsorRow {
  chain: string;
  network: string;
  address: string;
}

const SPONSORS_QUERY = 'SELECT chain, network, address FROM sponsors ORDER BY chain, network';

/**
 * What `config check` says of the fee sponsors (chain, network, address; never a key): read from the
 * database when it answers, which a good configuration does not need, so a database that is not there
 * yet (a first start) or does not answer is said, never an error.
 */
export async function sponsorSummary(config: Pick<Config, 'databaseUrl'>): Promise<string[]> {
  const { databaseUrl } = config;
  let rows: SponsorRow[];
  try {
    if (databaseUrl.startsWith('sqlite:')) {
      const file = databaseUrl.slice('sqlite:'.length);
      // An SQLite file is made by opening it: a check leaves none behind.
      if (!existsSync(file)) return ['fee sponsors: none (the database is made at the first start)'];
      rows = await sqliteRows(file);
    } else {
      rows = await postgresRows(databaseUrl);
    }
  } catch {
    return ['fee sponsors: not read (the database does not answer, or is not migrated yet)'];
  }
  if (rows.length === 0) return ['fee sponsors: none set (cli sponsor set)'];
  return rows.map((row) => `fee sponsor: ${row.chain} ${row.network} ${row.address}`);
}

async function sqliteRows(file: string): Promise<SponsorRow[]> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return database.prepare(SPONSORS_QUERY).all() as SponsorRow[];
  } finally {
    database.close();
  }
}

/** One connection, given up on after CONNECT_TIMEOUT_MS, so a database out of reach holds nothing open. */
async function postgresRows(connectionString: string): Promise<SponsorRow[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<SponsorRow>(SPONSORS_QUERY)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}
