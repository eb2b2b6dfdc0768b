import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

export const PROJECT_ROOT = new URL('../..', import.meta.url).pathname;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment with `changes` applied; an undefined value removes the variable. */
function environment(changes: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...changes };
  for (const [key, value] of Object.entries(changes)) if (value === undefined) delete env[key];
  return env;
}

/** Runs a command in the project root to completion. */
export function run(
  command: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  input = '',
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env: environment(env) });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running command in its own process group, so a signal reaches all it started. */
export function startDetached(command: string, args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(command, args, {
    cwd: PROJECT_ROOT,
    env: environment(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

export function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(
      () => reject(new Error(`process did not exit within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A TCP port free on 127.0.0.1 right now, for a process that must be told its port. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
