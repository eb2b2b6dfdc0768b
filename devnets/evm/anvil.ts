// Runs the real anvil binary from node_modules. A small sh wrapper kills anvil when its stdin closes,
// which happens when this process exits for any reason (even SIGKILL), so no anvil outlives the tests.
// The wrapper runs in its own process group: a Ctrl-C in the terminal reaches this process, which can
// then save the chain before it closes anvil, instead of reaching anvil first.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface AnvilOptions {
  chainId: number;
  /** 0 or undefined picks a free port. */
  port?: number;
  host?: string;
  /** Seconds between blocks; undefined mines a block per transaction (auto-mining). */
  blockTime?: number;
  /** With blockTime: each transaction is still mined at once, and blocks come every blockTime besides. */
  mixedMining?: boolean;
  /** A state anvil dumped (JSON): the chain starts from it, blocks and transactions included. */
  loadState?: string;
  /** Initial base fee in wei (BSC: 0, as its chain has). */
  baseFee?: bigint;
  /** Dev account balance, in ether. */
  balanceEther?: number;
  /**
   * Starts as a fork of another node at one of its blocks: heights up to it are that node's blocks (same
   * hashes), and whatever this node mines above it is a chain of its own.
   */
  fork?: AnvilFork;
  extraArgs?: string[];
}

export interface AnvilFork {
  /** JSON-RPC URL of the node forked from; it must stay up while the fork runs. */
  url: string;
  blockNumber: bigint;
}

export interface AnvilProcess {
  url: string;
  port: number;
  close(): Promise<void>;
}

// The wrapper runs anvil and a reader of its own stdin; EOF there (this process gone, or close()) or a
// signal kills anvil, and the wrapper exits when anvil does. A background job's stdin is /dev/null in
// sh, hence the copy on fd 3.
const WATCHDOG = [
  'exec 3<&0',
  '"$0" "$@" </dev/null & pid=$!',
  '( read _ <&3; kill $pid 2>/dev/null ) & reader=$!',
  "trap 'kill $pid 2>/dev/null' TERM INT HUP",
  'wait $pid; status=$?',
  'kill $reader 2>/dev/null',
  'exit $status',
].join('\n');

/**
 * The anvil binary @foundry-rs/anvil installed: its platform package's executable, run directly (the
 * `.bin/anvil` script is a node process that would sit between the wrapper and anvil); that script
 * when no platform package resolves.
 */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const wrapper = require.resolve('@foundry-rs/anvil/package.json');
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  try {
    const platformPackage = createRequire(wrapper).resolve(
      `@foundry-rs/anvil-${process.platform}-${arch}/package.json`,
    );
    return join(dirname(platformPackage), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    // node_modules/@foundry-rs/anvil -> node_modules/.bin/anvil
    return join(dirname(wrapper), '..', '..', '.bin', 'anvil');
  }
}

export async function startAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  let lastError: unknown;
  // A port picked free can be taken before anvil binds it; try a few.
  for (let attempt = 0; attempt < (options.port ? 1 : 4); attempt++) {
    const port = options.port || (await freePort(options.host ?? '127.0.0.1'));
    try {
      return await launch(port, options);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function launch(port: number, options: AnvilOptions): Promise<AnvilProcess> {
  const host = options.host ?? '127.0.0.1';
  // anvil writes this file once it has bound its port: proof that the node answering is this one and
  // not another process already on the port.
  const configOut = join(tmpdir(), `switchyard-anvil-${process.pid}-${randomBytes(6).toString('hex')}.json`);
  const args = ['--chain-id', String(options.chainId), '--host', host, '--port', String(port), '--silent'];
  args.push('--config-out', configOut);
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.blockTime !== undefined && options.mixedMining) args.push('--mixed-mining');
  if (options.loadState !== undefined) args.push('--load-state', options.loadState);
  if (options.baseFee !== undefined) args.push('--base-fee', options.baseFee.toString());
  if (options.balanceEther !== undefined) args.push('--balance', String(options.balanceEther));
  if (options.fork !== undefined) {
    args.push('--fork-url', options.fork.url, '--fork-block-number', options.fork.blockNumber.toString());
  }
  args.push(...(options.extraArgs ?? []));

  const child = spawn('/bin/sh', ['-c', WATCHDOG, anvilBinary(), ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    await waitReady(url, configOut, exited, () => stderr);
  } catch (error) {
    await stop(child, exited);
    throw error;
  } finally {
    await rm(configOut, { force: true });
  }
  // A devnet a test forgot to close must not keep the runner alive; the watchdog still kills anvil.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  return { url, port, close: () => stop(child, exited) };
}

async function waitReady(
  url: string,
  configOut: string,
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<void> {
  let done = false;
  const early = exited.then((code) => {
    done = true;
    return code;
  });
  const deadline = Date.now() + 20_000;
  while (!done && Date.now() < deadline) {
    try {
      await readFile(configOut);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) return;
    } catch {
      // Not bound or not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (done) throw new Error(`anvil exited before it was ready (code ${await early}): ${stderr().trim()}`);
  throw new Error(`anvil did not answer on ${url} within 20 s`);
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGTERM'), 3_000);
  await exited;
  clearTimeout(timer);
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
