// Starts and stops `npm run sandbox` on a folder the way a user does (Ctrl-C reaches the whole process
// group), for tests that run it more than once on the same folder.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type ApiResponse, send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { exited, startDetached, waitFor } from '../helpers/processes.ts';

export interface SandboxInfo {
  baseUrl: string;
  token: string;
  chains: Record<string, { networks: string[]; tokens: Record<string, Record<string, string>> }>;
}

export interface SandboxRun {
  info: SandboxInfo;
  output(): string;
  /** Calls the API with the demo token; `network` sets X-Network. */
  api(method: string, url: string, json?: unknown, network?: string): Promise<ApiResponse>;
  /** Sends `signal` to every process the run started and waits until they are all gone. */
  stop(signal: 'SIGINT' | 'SIGKILL'): Promise<void>;
}

/** Whether any process of the group `pid` leads is still running. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes (anvil included, which runs in a group of its own) whose command line names `dir`. */
export function processesNaming(dir: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return table.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

export async function startSandboxRun(
  dir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<SandboxRun> {
  const file = path.join(dir, 'sandbox.json');
  // The file a run writes once it is ready; the last run's must not be taken for it.
  rmSync(file, { force: true });
  const child = startDetached('npm', ['run', 'sandbox', ...(args.length ? ['--', ...args] : [])], {
    PORT: '0',
    SANDBOX_DIR: dir,
    LOG_LEVEL: 'warn',
    // The tests of the sandbox are not about the key derivation: keys and passwords at the test cost.
    ...TEST_KDF_ENV,
    ...env,
  });
  const pid = child.child.pid as number;
  let info: SandboxInfo;
  try {
    info = await waitFor(() => {
      if (child.child.exitCode !== null) throw new Error(`sandbox exited: ${child.output()}`);
      return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SandboxInfo) : undefined;
    }, 120_000);
    await waitFor(() => (child.output().includes('sandbox ready') ? true : undefined), 10_000);
  } catch (error) {
    if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    throw error;
  }
  return {
    info,
    output: child.output,
    api: (method, url, json, network = 'mainnet') =>
      send(info.baseUrl, method, url, {
        token: info.token,
        headers: { 'x-network': network },
        ...(json === undefined ? {} : { json }),
      }),
    stop: async (signal) => {
      if (groupAlive(pid)) process.kill(-pid, signal);
      await exited(child.child, 30_000);
      await waitFor(() => (groupAlive(pid) ? undefined : true), 30_000);
    },
  };
}
