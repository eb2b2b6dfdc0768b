// Starts and stops `npm run sandbox` on a folder the way a user does (Ctrl-C reaches the whole process
// group), for tests that run it more than once on the same folder.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type ApiResponse, send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { exited, PROJECT_ROOT, startDetached, waitFor } from '../helpers/processes.ts';

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

/** Every process under `pid` (its children, theirs, ...), read from /proc: anvil's own groups included. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').slice(0, 4096);
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether `pid` is running: a zombie has ended, whoever has yet to reap it. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export interface ScriptedSandbox {
  /** The `npm run sandbox` process, as `$!` names it in the script. */
  pid: number;
  info: SandboxInfo;
  /** `pid` and everything it started, as the run is ready. */
  processes: number[];
  output(): string;
}

/**
 * `npm run sandbox &` as a shell script runs it: a background job of a non-interactive sh, which starts
 * it with SIGINT and SIGQUIT ignored and its output in a file; the script (and its sh) ends at once.
 */
export async function startScriptedSandbox(
  dir: string,
  env: Record<string, string>,
): Promise<ScriptedSandbox> {
  const file = path.join(dir, 'sandbox.json');
  const log = path.join(dir, 'sandbox-output.txt');
  rmSync(file, { force: true });
  const script = execFileSync('sh', ['-c', 'npm run sandbox >"$OUTPUT" 2>&1 </dev/null & echo $!'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: '0', SANDBOX_DIR: dir, LOG_LEVEL: 'warn', OUTPUT: log, ...env },
    encoding: 'utf8',
  });
  const pid = Number(script.trim());
  const output = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  try {
    await waitFor(() => {
      if (!running(pid)) throw new Error(`the sandbox exited: ${output()}`);
      return output().includes('sandbox ready') ? true : undefined;
    }, 120_000);
  } catch (error) {
    for (const each of [pid, ...descendants(pid)]) process.kill(each, 'SIGKILL');
    throw error;
  }
  const info = JSON.parse(readFileSync(file, 'utf8')) as SandboxInfo;
  return { pid, info, processes: [pid, ...descendants(pid)], output };
}
