import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from '../helpers/processes.ts';

/**
 * A Postgres cluster of this test's own (initdb in a temp folder, its own port), so that stopping it hard
 * and starting it again troubles no other test. Postgres refuses to run as root: as root, its commands run
 * as the `postgres` user.
 */
export interface PrivatePostgres {
  url: string;
  /** Stops the server the way a crash does (`pg_ctl stop -m immediate`: no shutdown checkpoint). */
  crash(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const OWNER = 'postgres';

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const owner = await idsOf(OWNER);
    chownSync(dir, owner.uid, owner.gid);
  }
  chmodSync(dir, 0o700);
  const command = (args: string[]) =>
    asRoot ? run('runuser', ['-u', OWNER, '--', ...args]) : run(args[0]!, args.slice(1));

  await command(['initdb', '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    await command(['pg_ctl', '-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
    await waitFor(async () => ((await answers(url)) ? true : undefined), 20_000);
  };
  await start();
  return {
    url,
    crash: async () => {
      await command(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    close: async () => {
      await command(['pg_ctl', '-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a command to its end; its stdout, or an error with what it printed. */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout.trim())
        : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${output}`)),
    );
  });
}
