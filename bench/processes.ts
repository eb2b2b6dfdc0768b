import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A server started in its own process by `bench/<script>`, which prints one JSON line once it listens. */
export interface ServerProcess<T> {
  info: T;
  child: ChildProcess;
  /** Resident memory now, in MiB (Linux /proc). */
  rssMiB(): number;
  stop(): Promise<void>;
}

export async function startServerProcess<T>(
  script: string,
  env: Record<string, string> = {},
): Promise<ServerProcess<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  return {
    info: JSON.parse(firstLine) as T,
    child,
    rssMiB: () => rssMiB(child.pid!),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The plan the load runs under: unlimited quotas and a rate far above what one machine serves, so every
 * request takes the whole path (the rate check and the quota count included) and none is refused.
 */
const BENCH_PLAN = {
  name: 'bench',
  period: 'month',
  quotas: { webhooks: null, addresses: null, requests: 1_000_000_000, transactions: null },
  rate: { requests: 1_000_000, seconds: 1 },
};

/** The compiled gateway (`npm run build`) with only the API role, as `npm start` runs it, on a fresh SQLite folder. */
export async function startGatewayProcess(
  env: Record<string, string> = {},
): Promise<ServerProcess<{ url: string; token: string }>> {
  if (!existsSync('dist/src/main.js'))
    throw new Error('run `npm run build` first: the bench runs the compiled gateway');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  const settings = {
    ...process.env,
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
    ROLES: 'api',
    HOST: '127.0.0.1',
    PLANS: JSON.stringify([BENCH_PLAN]),
    ...env,
  };
  const created = await execFileAsync(
    process.execPath,
    ['dist/src/cli/main.js', 'token', 'create', '--email', 'bench@example.com'],
    { env: settings },
  );
  const port = await freePort();
  // The metrics server stays on (its cost belongs in the figures), on a port no other process holds.
  const metricsPort = await freePort();
  const log = openSync(path.join(dir, 'gateway.log'), 'a');
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...settings, PORT: String(port), METRICS_PORT: String(metricsPort), ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 300 || child.exitCode !== null)
      throw new Error(`the gateway did not start (log: ${dir}/gateway.log)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    info: { url, token: created.stdout.trim() },
    child,
    rssMiB: () => rssMiB(child.pid!),
    stop: async () => {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** A TCP port nothing listens on now (for a server started next, on 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export interface LoadResult {
  perSecond: number;
  failed: number;
  refused: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

/** GET load from its own process (bench/load-generator.ts): requests per second and latency percentiles. */
export async function load(
  url: string,
  options: {
    durationMs?: number;
    concurrency?: number;
    headers?: Record<string, string>;
    /** Stops after this many requests (past the warm-up), if the time is not up first. */
    requests?: number;
  } = {},
): Promise<LoadResult> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/load-generator.ts',
      url,
      String(options.durationMs ?? 3000),
      String(options.concurrency ?? 32),
    ],
    {
      env: {
        ...process.env,
        LOAD_HEADERS: JSON.stringify(options.headers ?? {}),
        LOAD_REQUESTS: options.requests === undefined ? '' : String(options.requests),
      },
    },
  );
  const result = JSON.parse(stdout) as LoadResult;
  if (result.failed > 0)
    throw new Error(`${result.failed} requests to ${url} failed: ${JSON.stringify(result.refused)}`);
  return result;
}
