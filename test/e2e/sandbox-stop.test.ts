// `npm run sandbox &` in a script, then `kill -INT $!` or `kill $!`: the signal goes to npm alone (no
// terminal sends it to the whole group), and npm was started with SIGINT ignored. Either signal must
// stop everything the sandbox started within 5 s, the devnets' chains saved. Two runs on one folder:
// the second starts on what the first saved.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { send } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { running, type ScriptedSandbox, startScriptedSandbox } from './sandbox-runs.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sandbox-stop-'));
let current: ScriptedSandbox | null = null;
afterAll(() => {
  // A run that did not stop is killed, whatever it started.
  for (const pid of current?.processes ?? []) if (running(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

// Saved only when stopped, so what is on disk after the stop was written by it; EVM blocks every second.
const ENV = { SANDBOX_SNAPSHOT_INTERVAL: '0', SANDBOX_EVM_BLOCK_TIME: '1' };

const evmHeadFiles = () =>
  readdirSync(path.join(dir, 'devnets'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('head.txt'))
    .map((file) => path.join(dir, 'devnets', file));
const savedHead = () => Number(readFileSync(path.join(dir, 'devnets/ethereum/mainnet/head.txt'), 'utf8'));

async function headOf(run: ScriptedSandbox, chain = 'ethereum', network = 'mainnet'): Promise<number> {
  const answer = await send(run.info.baseUrl, 'GET', `/api/v2/${chain}/blocks/number`, {
    token: run.info.token,
    headers: { 'x-network': network },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.blocknumber;
}

/** Waits until every EVM devnet has mined past the head it saved last, so each must save at the stop. */
async function everyEvmDevnetMoved(run: ScriptedSandbox): Promise<void> {
  for (const file of evmHeadFiles()) {
    const [chain, network] = path.relative(path.join(dir, 'devnets'), file).split(path.sep);
    const saved = Number(readFileSync(file, 'utf8'));
    await waitFor(async () => ((await headOf(run, chain, network)) > saved ? true : undefined), 15_000);
  }
}

const described = (pid: number) =>
  `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 60)}`;

const portFree = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

/** Sends `signal` to npm only, and checks what must hold 5 s later. */
async function stopWithin5s(run: ScriptedSandbox, signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
  // Every EVM devnet mined since its last save (a restart can be ready within a block time): each must
  // save again at the stop.
  const head = await headOf(run);
  await everyEvmDevnetMoved(run);
  const signalled = Date.now();
  process.kill(run.pid, signal);
  const left = () => run.processes.filter(running);
  try {
    await waitFor(() => (left().length === 0 ? true : undefined), 5_000);
  } catch {
    throw new Error(
      `${signal}: ${left().length} of ${run.processes.length} processes still run 5 s later: ${left().map(described).join(', ')}`,
    );
  }
  console.info(
    `${signal}: all ${run.processes.length} processes of the run ended ${Date.now() - signalled} ms after it`,
  );
  expect(await portFree(run.info.baseUrl), 'the API port is free').toBe(true);
  expect(savedHead(), 'the ethereum devnet saved its chain').toBeGreaterThanOrEqual(head);
  for (const file of evmHeadFiles()) {
    expect(statSync(file).mtimeMs, `${file} written at the stop`).toBeGreaterThanOrEqual(signalled - 1000);
  }
  expect(run.output()).toContain('stopping the sandbox');
}

describe('npm run sandbox started by a script', { timeout: 240_000 }, () => {
  it('stops everything within 5 s of a SIGINT, then of a SIGTERM, to the npm process, saving the chains', async () => {
    onTestFailed(() => console.error(`sandbox output:\n${current?.output() ?? '(none)'}`));
    current = await startScriptedSandbox(dir, ENV);
    // The script's npm: npm, then the node process of the sandbox, its anvils under it.
    expect(current.processes.length).toBeGreaterThan(8);
    await stopWithin5s(current, 'SIGINT');
    const saved = savedHead();

    current = await startScriptedSandbox(dir, ENV);
    // The chain the SIGINT saved is the one the sandbox carries on.
    expect(await headOf(current)).toBeGreaterThanOrEqual(saved);
    await stopWithin5s(current, 'SIGTERM');
  });
});
