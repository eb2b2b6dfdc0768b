// The production entry and the setup commands as a user runs them (`npm start` runs the compiled
// dist/src/main.js, built by the e2e project's global setup; the setup commands run through tsx): every
// way a start can fail says in one line what is wrong and which setting to change, without a stack trace.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_URL } from '../helpers/gateway.ts';
import { freePort, run } from '../helpers/processes.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-startup-'));
const masterKey = randomBytes(32).toString('base64');
const listeners: net.Server[] = [];
afterAll(async () => {
  await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dataDir, { recursive: true, force: true });
});

/** Only the given settings: none of the test run's own (DATABASE_URL and the like) leak in. */
function isolated(env: Record<string, string>): Record<string, string | undefined> {
  const cleared: Record<string, string | undefined> = {};
  for (const name of ['DATABASE_URL', 'MASTER_KEY', 'SANDBOX_DIR', 'CONFIG_FILE', 'PORT', 'HOST', 'ROLES']) {
    cleared[name] = undefined;
  }
  return { ...cleared, DATA_DIR: dataDir, LOG_LEVEL: 'warn', METRICS_PORT: 'off', ...env };
}

const gateway = (env: Record<string, string>) => run(process.execPath, ['dist/src/main.js'], isolated(env));
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], isolated(env));

async function occupiedPort(): Promise<number> {
  const server = net.createServer();
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

function expectOneLine(stderr: string): void {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
}

// Each case starts a process that loads TypeScript: seconds apiece on a busy machine.
describe('setup commands', { timeout: 60_000 }, () => {
  it('master-key generate prints a new base64 32-byte key and nothing else', async () => {
    const [first, second] = await Promise.all([
      cli(['master-key', 'generate']),
      cli(['master-key', 'generate']),
    ]);
    for (const result of [first!, second!]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
      expect(Buffer.from(result.stdout.trim(), 'base64')).toHaveLength(32);
    }
    expect(first!.stdout).not.toBe(second!.stdout);
  });

  it('config check sums up a good configuration without a secret, and names every problem of a bad one', async () => {
    const url = 'postgres://switchyard:pa55word@db.internal:5432/switchyard';
    const [good, bad] = await Promise.all([
      cli(['config', 'check'], { DATABASE_URL: url, MASTER_KEY: masterKey, ROLES: 'api,deliverer' }),
      cli(['config', 'check'], { DATABASE_URL: url, PORT: '99999', LOG_LEVEL: 'chatty' }),
    ]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^configuration OK\n/);
    const summary = [
      'database: postgres at db.internal:5432/switchyard',
      'roles: api, deliverer',
      'master key: MASTER_KEY',
    ];
    for (const line of summary) expect(good.stdout).toContain(line);
    expect(good.stdout).not.toContain('pa55word');
    expect(good.stdout).not.toContain(masterKey);
    expect(bad.code).toBe(78);
    expect(bad.stdout).toBe('');
    // Every problem at once, with the command that makes the missing key.
    const problems = [
      'PORT: 99999 is outside 0..65535',
      'LOG_LEVEL: "chatty" is not one of',
      'MASTER_KEY: is required with a Postgres DATABASE_URL',
      'npm run -s cli -- master-key generate',
    ];
    for (const problem of problems) expect(bad.stderr).toContain(problem);
    expect(bad.stderr).not.toContain('pa55word');
  });
});

describe('the production entry', { timeout: 60_000 }, () => {
  it('names every bad setting at once and exits 78 before touching the database', async () => {
    const result = await gateway({
      DATABASE_URL: 'postgres://switchyard:pa55word@127.0.0.1:1/none',
      PORT: 'eighty',
      ROLES: 'api,cook',
      KDF_CONCURRENCY: '0',
    });
    expect(result.code).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('Invalid configuration, 4 problems:');
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual([
      'PORT',
      'ROLES',
      'KDF_CONCURRENCY',
      'MASTER_KEY',
    ]);
    expect(result.stderr).not.toContain('pa55word');
  });

  it('says which port is in use and which settings change it, for the API and for metrics', async () => {
    const [apiPort, metricsPort] = await Promise.all([occupiedPort(), occupiedPort()]);
    // Each on its own embedded database: two first starts on one SQLite file would race to migrate it.
    const [api, metrics] = await Promise.all([
      gateway({ HOST: '127.0.0.1', PORT: String(apiPort), DATA_DIR: path.join(dataDir, 'api') }),
      gateway({
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(metricsPort),
        DATA_DIR: path.join(dataDir, 'metrics'),
      }),
    ]);
    expect(api.code).toBe(1);
    expectOneLine(api.stderr);
    expect(api.stderr).toContain(
      `the API cannot listen on 127.0.0.1:${apiPort}: the port is in use; set PORT (or HOST)`,
    );
    expect(metrics.code).toBe(1);
    expectOneLine(metrics.stderr);
    expect(metrics.stderr).toContain(
      `metrics cannot listen on 127.0.0.1:${metricsPort}: the port is in use; set METRICS_PORT`,
    );
  });

  it('names the host of a database it cannot reach and the setting, never the password', async () => {
    const port = await freePort();
    const result = await gateway({
      DATABASE_URL: `postgres://switchyard:pa55word@127.0.0.1:${port}/switchyard`,
      MASTER_KEY: masterKey,
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr).toContain(
      `cannot reach the database (postgres at 127.0.0.1:${port}/switchyard, set by DATABASE_URL): connect ECONNREFUSED`,
    );
    expect(result.stderr).not.toContain('pa55word');
  });

  it('names a failed migration and its cause', async () => {
    // A schema where the first migration's first table already exists with another shape.
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.users (something integer)`);
      const result = await gateway({
        DATABASE_URL: `${POSTGRES_URL}?options=-c%20search_path%3D${schema}`,
        MASTER_KEY: masterKey,
      });
      expect(result.code).toBe(1);
      expectOneLine(result.stderr);
      expect(result.stderr).toContain(
        'switchyard failed to start: database migration 0001_foundation failed: relation "users" already exists',
      );
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });
});
