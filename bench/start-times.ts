import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './processes.ts';
import type { Benchmark, Measurement } from './types.ts';
import { percentile } from './types.ts';

/** Each start is timed this many times; the median is the figure. */
const RUNS = 5;
/** A Postgres database without MASTER_KEY: the configuration error a new user meets first. */
const POSTGRES_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://127.0.0.1:5432/test';

/**
 * How soon the gateway answers as an operator starts it: `npm start` without MASTER_KEY (its prestart's
 * `config check` names the error), each admin command as `npm run cli` runs it (scripts/cli.mjs, the
 * compiled CLI), and the compiled API role until /readyz answers 200. Each is wall time from spawn to
 * exit (or readiness), the median of RUNS, against `node -e 0` timed the same way in the same run.
 */
export const startTimes: Benchmark = {
  name: 'start: npm start without MASTER_KEY, each CLI command, API role ready',
  async run() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-start-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, METRICS_PORT: 'off' };
    delete env['MASTER_KEY'];
    delete env['DATABASE_URL'];
    delete env['SANDBOX_DIR'];
    try {
      const baseline = { what: 'node -e 0', value: await median(() => exited('node', ['-e', '0'], env)) };
      const within = (what: string, ms: number, limit: number, note?: string): Measurement => ({
        what,
        unit: 'ms',
        measured: ms,
        baseline,
        goal: { on: 'value', op: '<', value: limit },
        ...(note === undefined ? {} : { note }),
      });
      const results: Measurement[] = [];
      const noKey = { ...env, DATABASE_URL: POSTGRES_URL };
      results.push(
        within(
          '`npm start` without MASTER_KEY, to its configuration error',
          await median(() => exited('npm', ['start'], noKey, 78)),
          1000,
        ),
      );
      // The first command on a new database migrates it: timed once, as a new user meets it.
      const fresh = mkdtempSync(path.join(os.tmpdir(), 'switchyard-start-fresh-'));
      const first = await exited(
        'node',
        ['scripts/cli.mjs', 'token', 'create', '--email', 'first@example.com'],
        { ...env, DATA_DIR: fresh },
      );
      rmSync(fresh, { recursive: true, force: true });
      results.push(within('cli token create on a new database (migrates it)', first, 1500, 'one run'));
      for (const command of [
        'master-key generate',
        'config check',
        'token create --email bench@example.com',
        'token list',
        'user list',
        'plan list',
        'sponsor list',
      ]) {
        const ms = await median(() => exited('node', ['scripts/cli.mjs', ...command.split(' ')], env));
        results.push(within(`cli ${command}`, ms, 1500));
      }
      results.push(within('API role ready (/readyz 200)', await median(() => apiReady(env)), 2000));
      return results;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

async function median(time: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await time());
  return percentile(times, 50);
}

/** Wall milliseconds from spawn to exit; throws when the exit code is not `expected`. */
function exited(command: string, args: string[], env: NodeJS.ProcessEnv, expected = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code === expected) resolve(ms);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}, not ${expected}: ${stderr}`));
    });
  });
}

/** Wall milliseconds from spawning the compiled API role until /readyz answers 200; then it is stopped. */
async function apiReady(env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...env, ROLES: 'api', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      if (child.exitCode !== null)
        throw new Error(`the API role exited (${child.exitCode}) before it was ready`);
      if (performance.now() - started > 60_000) throw new Error('the API role was not ready within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }
}
