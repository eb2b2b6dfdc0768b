import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { NonceReconciler } from '../../src/chains/evm/nonce-reconciler.ts';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { createLogger } from '../../src/logger.ts';

describe('NonceReconciler', () => {
  it('lives through a pass whose database is gone (it runs on a timer: a rejection would end the process)', async () => {
    const db = new Kysely<Record<string, never>>({
      dialect: new SqliteDialect({ database: new Database(':memory:') }),
    });
    await db.destroy();
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const reconciler = new NonceReconciler(db, 'sqlite', new ChainRegistry(), logger);
    await expect(reconciler.runOnce()).resolves.toBeUndefined();
    expect(lines.some((line) => line.includes('nonces not reconciled'))).toBe(true);
  });
});
