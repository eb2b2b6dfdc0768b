import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';

/**
 * What a sandbox keeps: its devnets' chains, its database (with WAL and journal), the master key sealing
 * its webhook secrets, sandbox.json and the log. Only files inside the sandbox folder: a DATA_DIR that
 * points elsewhere may hold something that is not the sandbox's to delete.
 */
export function sandboxFiles(dir: string, config: Config): { inside: string[]; outside: string[] } {
  const files = [path.join(dir, 'devnets'), path.join(dir, 'sandbox.json'), path.join(dir, 'gateway.log')];
  if (config.databaseUrl.startsWith('sqlite:')) {
    const db = path.resolve(config.databaseUrl.slice('sqlite:'.length));
    files.push(db, `${db}-wal`, `${db}-shm`, `${db}-journal`);
  }
  if (config.masterKey === undefined) files.push(path.join(config.dataDir, 'master.key'));
  const root = `${path.resolve(dir)}${path.sep}`;
  return {
    inside: files.filter((file) => path.resolve(file).startsWith(root)),
    outside: files.filter((file) => !path.resolve(file).startsWith(root)),
  };
}

/** Deletes what the sandbox keeps, so that the next start is a first one; returns what it left alone. */
export async function resetSandbox(dir: string, config: Config): Promise<string[]> {
  const { inside, outside } = sandboxFiles(dir, config);
  for (const file of inside) await rm(file, { recursive: true, force: true });
  return outside;
}
