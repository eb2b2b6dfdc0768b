import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_MIGRATIONS } from '../../src/gateway-migrations.ts';
import { migrateToLatest, openStore } from '../../src/store/store.ts';
import { freshDatabase, testDatabase } from '../helpers/gateway.ts';

/** Another process (as the admin CLI is) writing one user with SQLite's busy timeout. */
function writeFromAnotherProcess(file: string): Promise<{ code: number | null; stderr: string }> {
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(process.argv[1]);
    db.pragma('busy_timeout = 5000');
    db.prepare('insert into users (id, email, created_at) values (?, ?, ?)').run(process.argv[2], process.argv[2] + '@example.com', new Date().toISOString());
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, file, randomUUID()], {
    cwd: process.cwd(),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe.runIf(testDatabase() === 'sqlite')('SQLite shared with another process', () => {
  it('a transaction that reads then writes waits for the other writer instead of failing "database is locked"', async () => {
    const database = freshDatabase();
    const file = path.join(database.dataDir, 'shared.db');
    const store = await openStore(`sqlite:${file}`);
    try {
      await migrateToLatest(store, GATEWAY_MIGRATIONS);
      let other: Promise<{ code: number | null; stderr: string }> | undefined;
      await store.db.transaction().execute(async (trx) => {
        await trx.selectFrom('users').select('id').execute();
        other = writeFromAnotherProcess(file);
        // Long enough for the other process to have written, had it not had to wait for this transaction.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await trx
          .insertInto('users')
          .values({
            id: randomUUID(),
            email: `${randomUUID()}@example.com`,
            created_at: new Date().toISOString(),
            number: 1,
          })
          .execute();
      });
      const result = await other!;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const users = await store.db.selectFrom('users').select('id').execute();
      expect(users).toHaveLength(2);
    } finally {
      await store.close();
      await database.drop();
    }
  });
});
