import { statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { freshDatabase, testDatabase } from '../helpers/gateway.ts';
import { waitFor } from '../webhooks/fixtures.ts';

async function autocheckpoint(store: Awaited<ReturnType<typeof openStore>>): Promise<number> {
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
  return rows[0]!.wal_autocheckpoint;
}

describe.runIf(testDatabase() === 'sqlite')('SQLite write-ahead log checkpoints', () => {
  it('run on a worker once the log grows, and keep it from growing further', async () => {
    const database = freshDatabase();
    const file = path.join(database.dataDir, 'checkpointed.db');
    const store = await openStore(`sqlite:${file}`);
    try {
      await sql`create table filler (id integer primary key, body text)`.execute(store.db);
      // At first the connection checkpoints by itself, as SQLite does: a process that writes little
      // (a short command, the API role idle) never starts the worker.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await autocheckpoint(store)).toBe(1000);
      // Far more than the 1,000 pages (4 MB) at which a commit would have checkpointed.
      const body = 'x'.repeat(4000);
      const writeRound = () =>
        store.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 250; i++) await sql`insert into filler (body) values (${body})`.execute(trx);
        });
      // Two rounds (500 pages, 2 MB) take the log past the 1 MB at which the worker starts.
      await writeRound();
      await writeRound();
      await waitFor(async () => (await autocheckpoint(store)) === 0, 10_000);
      for (let round = 2; round < 12; round++) {
        await writeRound();
        await new Promise((resolve) => setTimeout(resolve, 250)); // the worker's turn
      }
      expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await store.close();
    }
    // The worker ended with the store, and SQLite's last checkpoint on close removed the log.
    expect(() => statSync(`${file}-wal`)).toThrow();
    const reopened = await openStore(`sqlite:${file}`);
    try {
      const { rows } = await sql<{ n: number }>`select count(*) as n from filler`.execute(reopened.db);
      expect(rows[0]!.n).toBe(3000);
    } finally {
      await reopened.close();
      await database.drop();
    }
  });
});
