import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, Migrator } from 'kysely';
import pg from 'pg';
import type { NonceDialect } from '../../../src/chains/evm/index.ts';
import { EvmAdapter } from '../../../src/chains/evm/index.ts';
import { evmMigrations } from '../../../src/chains/evm/migrations/index.ts';
import type { ChainName } from '../../../src/chains/types.ts';
import { openStore } from '../../../src/store/store.ts';

/** Same default as test/helpers/gateway.ts. */
export const POSTGRES_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface NonceDatabase {
  // biome-ignore lint/suspicious/noExplicitAny: the nonce tables are not in the project schema yet
  db: Kysely<any>;
  dialect: NonceDialect;
  /** Another connection pool on the same database (a second gateway instance). */
  another(): Promise<NonceDatabase>;
  close(): Promise<void>;
}

/** A fresh database with the nonce migrations applied: a temp SQLite file, or a new Postgres schema. */
export async function freshNonceDatabase(dialect: NonceDialect): Promise<NonceDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-evm-nonces-'));
    const store = await openStore(`sqlite:${path.join(dir, 'gateway.db')}`);
    await migrate(store.db);
    return {
      db: store.db,
      dialect,
      another: () => Promise.reject(new Error('one SQLite connection per file in these tests')),
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const pgSchema = `t_evm_${randomBytes(5).toString('hex')}`;
  const open = async (): Promise<NonceDatabase & { closeOnly(): Promise<void> }> => {
    const store = await openStore(POSTGRES_URL, { pgSchema, poolSize: 10 });
    return {
      db: store.db,
      dialect,
      another: open,
      closeOnly: () => store.close(),
      close: () => store.close(),
    };
  };
  const first = await open();
  await migrate(first.db, pgSchema);
  return {
    ...first,
    close: async () => {
      await first.closeOnly();
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
      await client.end();
    },
  };
}

/** On Postgres the migration tables go in the test's own schema, as the store puts them (store.ts). */
// biome-ignore lint/suspicious/noExplicitAny: see above
async function migrate(db: Kysely<any>, pgSchema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: {
      getMigrations: async () => ({ ...evmMigrations }),
    },
    ...(pgSchema === undefined ? {} : { migrationTableSchema: pgSchema }),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** An adapter on the devnet's node, with short timeouts so failures show fast. */
export function devnetAdapter(
  chain: ChainName,
  url: string | string[],
  options: { network?: 'mainnet' | 'testnet'; chainId?: number } = {},
): EvmAdapter {
  const urls = Array.isArray(url) ? url : [url];
  return new EvmAdapter({
    chain,
    network: options.network ?? 'mainnet',
    endpoints: urls.map((u) => ({ url: u, headers: {} })),
    timeoutMs: 5_000,
    retries: 2,
    backoffBaseMs: 10,
    ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
  });
}
