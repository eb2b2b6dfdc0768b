// The README's Production steps, word for word, as a newcomer runs them: a master key, a Postgres
// DATABASE_URL, `npm start` (check, build, migrate, serve), a first token that works on /api/account.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/gateway.ts';
import { exited, freePort, startDetached, waitFor } from '../helpers/processes.ts';
import { readmeSnippets } from '../helpers/readme-snippets.ts';

const DONE = '__production_snippets_done__';
const schema = `t_${randomBytes(6).toString('hex')}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-production-'));

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

beforeAll(() => sql(`CREATE SCHEMA ${schema}`));
afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  rmSync(dataDir, { recursive: true, force: true });
});

// `npm start` builds the project before it serves: tens of seconds on a busy machine.
describe('README: Production', { timeout: 300_000 }, () => {
  it('starts on Postgres with a generated master key and serves a token made by the CLI', async () => {
    const snippets = readmeSnippets('production');
    expect(snippets.length).toBeGreaterThan(0);
    expect(snippets.every((s) => s.lang === 'sh')).toBe(true);
    const port = await freePort();
    // One bash session for the group, as the README is read; it stays up (wait) until the test stops it.
    const script = `${snippets.map((s) => s.code).join('\n')}\necho ${DONE}\nwait\n`;
    const session = startDetached('bash', ['-c', script], {
      DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}`,
      DATA_DIR: dataDir,
      PORT: String(port),
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    try {
      await waitFor(() => {
        if (session.child.exitCode !== null) throw new Error(`the steps stopped:\n${session.output()}`);
        return session.output().includes(DONE) ? true : undefined;
      }, 280_000);
      const output = session.output();
      expect(output).toContain('configuration OK');
      expect(output).toContain('database: postgres at 127.0.0.1:5432/test');
      expect(output).toContain('"status":200,"ok":true,"message":"Account info fetched"');
      // The master key never reaches the output: it only went into the environment.
      expect(output).not.toMatch(/[A-Za-z0-9+/]{43}=/);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      process.kill(-(session.child.pid as number), 'SIGTERM');
      await exited(session.child, 30_000);
    }
  });
});
