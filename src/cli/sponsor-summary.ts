import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';

/** How long `config check` waits for the database before it says the sponsors were not read. */
const READ_TIMEOUT_MS = 3000;

/**
 * What `config check` says of the fee sponsors (chain, network, address; never a key): read from the
 * database when it answers, which a good configuration does not need, so a database that is not there
 * yet (a first start) or does not answer is said, never an error.
 */
export async function sponsorSummary(config: Pick<Config, 'databaseUrl'>): Promise<string[]> {
  const { databaseUrl } = config;
  // An SQLite file is made by opening it: a check leaves none behind.
  if (databaseUrl.startsWith('sqlite:') && !existsSync(databaseUrl.slice('sqlite:'.length)))
    return ['fee sponsors: none (the database is made at the first start)'];
  const { openStore } = await import('../store/store.ts');
  const store = await openStore(databaseUrl, { poolSize: 1 }).catch(() => undefined);
  if (store === undefined) return ['fee sponsors: not read (the database does not answer)'];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READ_TIMEOUT_MS);
    });
    const rows = await Promise.race([
      store.db
        .selectFrom('sponsors')
        .select(['chain', 'network', 'address'])
        .orderBy('chain')
        .orderBy('network')
        .execute(),
      timeout,
    ]);
    if (rows.length === 0) return ['fee sponsors: none set (cli sponsor set)'];
    return rows.map((row) => `fee sponsor: ${row.chain} ${row.network} ${row.address}`);
  } catch {
    return ['fee sponsors: not read (the database does not answer, or is not migrated yet)'];
  } finally {
    clearTimeout(timer);
    await store.close().catch(() => undefined);
  }
}
