import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { resetSandbox } from '../../src/sandbox/reset.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sandbox-reset-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function touch(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'x');
  return file;
}

describe('sandbox --reset', () => {
  it('deletes what the sandbox keeps in its folder, and nothing else there', async () => {
    const dir = path.join(root, 'sandbox');
    const kept = [
      touch(path.join(dir, 'devnets', 'tron', 'mainnet', 'chain.json')),
      touch(path.join(dir, 'devnets', 'ethereum', 'testnet', 'state.json.gz')),
      touch(path.join(dir, 'switchyard.db')),
      touch(path.join(dir, 'switchyard.db-wal')),
      touch(path.join(dir, 'switchyard.db-shm')),
      touch(path.join(dir, 'master.key')),
      touch(path.join(dir, 'sandbox.json')),
      touch(path.join(dir, 'gateway.log')),
    ];
    const notes = touch(path.join(dir, 'my-notes.txt'));
    expect(await resetSandbox(dir, loadConfig({ SANDBOX_DIR: dir }))).toEqual([]);
    for (const file of kept) expect(existsSync(file), file).toBe(false);
    expect(existsSync(path.join(dir, 'devnets'))).toBe(false);
    expect(existsSync(notes)).toBe(true);
  });

  it('leaves a database outside the folder (DATA_DIR elsewhere) alone and says so', async () => {
    const dir = path.join(root, 'sandbox2');
    const dataDir = path.join(root, 'data');
    const db = touch(path.join(dataDir, 'switchyard.db'));
    const chain = touch(path.join(dir, 'devnets', 'tron', 'mainnet', 'chain.json'));
    const left = await resetSandbox(dir, loadConfig({ SANDBOX_DIR: dir, DATA_DIR: dataDir }));
    expect(left).toContain(db);
    expect(existsSync(db)).toBe(true);
    expect(existsSync(chain)).toBe(false);
  });
});
