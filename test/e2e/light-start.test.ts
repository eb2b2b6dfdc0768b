// What the CLI and the families' modules load, traced by module resolution hooks in a child process (not
// timed: the bench times them). A chain library (tronweb, viem, @solana/kit, @scure/btc-signer) is tens of
// MiB and hundreds of milliseconds; the admin commands need none, and a family loads its own only when a
// chain of it is first used.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/processes.ts';

const CHAIN_LIBRARIES = ['tronweb', 'viem', '@solana/kit', '@solana-program/token', '@scure/btc-signer'];
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-light-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages a compiled entry resolves while it runs `args`. */
async function packagesLoadedBy(args: string[], name: string): Promise<Set<string>> {
  const trace = path.join(dir, `${name}.txt`);
  const result = await run(
    process.execPath,
    ['--import', './test/helpers/module-trace/register.mjs', ...args],
    { MODULE_TRACE_FILE: trace, DATA_DIR: path.join(dir, 'data'), SANDBOX_DIR: undefined },
  );
  expect(result.stderr).toBe('');
  const urls = readFileSync(trace, 'utf8').split('\n');
  return new Set(urls.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
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
});
