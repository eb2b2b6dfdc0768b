// What the CLI and the families' modules load, traced by module resolution hooks in a child process (not
// timed: the bench times them). A chain library (tronweb, viem, @solana/kit, @scure/btc-signer) is tens of
// MiB and hundreds of milliseconds; the admin commands need none, and a family loads its own only when a
// chain of it is first used.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, freePort, run, startDetached, waitFor } from '../helpers/processes.ts';

const CHAIN_LIBRARIES = ['tronweb', 'viem', '@solana/kit', '@solana-program/token', '@scure/btc-signer'];
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-light-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages named in a trace file. */
function packagesIn(trace: string): Set<string> {
  const urls = readFileSync(trace, 'utf8').split('\n');
  return new Set(urls.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
}

/** The packages a compiled entry resolves while it runs `args`. */
async function packagesLoadedBy(args: string[], name: string): Promise<Set<string>> {
  const trace = path.join(dir, `${name}.txt`);
  const result = await run(
    process.execPath,
    ['--import', './test/helpers/module-trace/register.mjs', ...args],
    { MODULE_TRACE_FILE: trace, DATA_DIR: path.join(dir, 'data'), SANDBOX_DIR: undefined },
  );
  expect(result.stderr).toBe('');
  return packagesIn(trace);
}

describe('a light start', { timeout: 60_000 }, () => {
  it.each([
    ['config check'],
    ['master-key generate'],
    ['token create --email light@example.com'],
    ['user list'],
    ['plan list'],
  ])('cli %s loads no chain library', async (command) => {
    const loaded = await packagesLoadedBy(['dist/src/cli/main.js', ...command.split(' ')], command);
    expect(CHAIN_LIBRARIES.filter((library) => loaded.has(library))).toEqual([]);
  });

  it("the families' modules load tronweb and the Bitcoin signer only when a transaction is built, read or signed", async () => {
    const loaded = await packagesLoadedBy(
      ['--input-type=module', '-e', "await import('./dist/src/chains/families.js')"],
      'families',
    );
    expect(loaded.has('@sinclair/typebox')).toBe(true);
    expect(loaded.has('tronweb')).toBe(false);
    expect(loaded.has('@scure/btc-signer')).toBe(false);
  });

  it('the API role, every chain configured, on SQLite without Redis, is ready and idle without any chain library or the Postgres and Redis clients', async () => {
    const trace = path.join(dir, 'api-role.txt');
    const port = await freePort();
    const gateway = startDetached(
      process.execPath,
      ['--import', './test/helpers/module-trace/register.mjs', 'dist/src/main.js'],
      {
        MODULE_TRACE_FILE: trace,
        DATA_DIR: path.join(dir, 'api-role'),
        ROLES: 'api',
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_PORT: 'off',
        PRICE_PROVIDERS: 'local',
        // SQLite and no Redis: neither driver is loaded then.
        DATABASE_URL: undefined,
        REDIS_URL: undefined,
      },
    );
    try {
      await waitFor(async () => {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        return ready?.ok ? true : undefined;
      }, 30_000).catch((error: Error) => {
        throw new Error(`${error.message}\n${gateway.output()}`);
      });
    } finally {
      gateway.child.kill('SIGTERM');
      await exited(gateway.child, 15_000);
    }
    // viem (its utils included) and @solana/kit load with the first EVM or Solana build, read or decode.
    const loaded = packagesIn(trace);
    expect(CHAIN_LIBRARIES.filter((library) => loaded.has(library))).toEqual([]);
    expect(loaded.has('@solana-program/system')).toBe(false);
    expect(loaded.has('pg')).toBe(false);
    expect(loaded.has('redis')).toBe(false);
  });
});
