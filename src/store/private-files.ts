import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The gateway's files hold sealed keys, token hashes and logs: readable by its own user only. A folder
 * the gateway creates is 0700; a database or log file is created 0600, or narrowed to 0600 when it exists
 * (SQLite gives its WAL and shared-memory files the database file's mode).
 */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
}

export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
}
