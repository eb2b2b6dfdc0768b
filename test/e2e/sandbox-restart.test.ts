import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { waitFor } from '../helpers/processes.ts';
import { processesNaming, type SandboxRun, startSandboxRun } from './sandbox-runs.ts';

// One folder, four runs in a row: Ctrl-C and start again, kill -9 and start again, then --reset.
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sandbox-restart-'));
let run: SandboxRun | null = null;
afterAll(async () => {
  await run?.stop('SIGKILL').catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

const PASSWORD = 'restart test password';
// Blocks every second on the EVM devnets, so that interval mining shows within a short wait.
const EVM_BLOCK_TIME = { SANDBOX_EVM_BLOCK_TIME: '1' };

async function start(env: Record<string, string>, args: string[] = []): Promise<SandboxRun> {
  run = await startSandboxRun(dir, { ...EVM_BLOCK_TIME, ...env }, args);
  return run;
}

/** Waits for `probe`; a timeout names what was awaited. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  try {
    await waitFor(async () => ((await probe()) ? true : undefined), timeoutMs);
  } catch {
    throw new Error(`${what}: not within ${timeoutMs} ms`);
  }
}

/** What the sandbox printed, and its log's last lines, for a test that fails. */
function showSandboxOnFailure(): void {
  onTestFailed(() => {
    const log = path.join(dir, 'gateway.log');
    console.error(`output of the stopped sandbox:\n${stoppedOutput}`);
    console.error(`sandbox output:\n${run?.output() ?? '(stopped)'}`);
    if (existsSync(log)) console.error(`gateway.log:\n${readFileSync(log, 'utf8').slice(-4000)}`);
  });
}

/** What the last stopped run printed (its save on Ctrl-C, or why it failed). */
let stoppedOutput = '(none)';

async function stop(signal: 'SIGINT' | 'SIGKILL'): Promise<void> {
  await run?.stop(signal);
  stoppedOutput = run?.output() ?? stoppedOutput;
  run = null;
}

async function newAddress(r: SandboxRun, chain: string): Promise<string> {
  const created = await r.api('POST', `/api/v2/${chain}/addresses`, { password: PASSWORD });
  expect(created.status, created.text).toBe(201);
  return created.body.data[0].address;
}

async function faucet(r: SandboxRun, chain: string, address: string, amount: string): Promise<string> {
  const funded = await r.api('POST', `/api/v2/${chain}/faucet`, { address, amount });
  expect(funded.status, funded.text).toBe(200);
  return funded.body.data.txid;
}

async function sendCoin(r: SandboxRun, chain: string, from: string, to: string, amount: string) {
  const sent = await r.api('POST', `/api/v2/${chain}/transactions`, { from, to, amount, password: PASSWORD });
  expect(sent.status, sent.text).toBe(201);
  return sent.body.data.txid as string;
}

const ethBalance = async (r: SandboxRun, address: string): Promise<string> =>
  (await r.api('GET', `/api/v2/ethereum/balances/${address}`)).body.data;
const trxBalance = async (r: SandboxRun, address: string): Promise<string> =>
  (await r.api('GET', `/api/v2/tron/balances/${address}`)).body.data.balance;
const solBalance = async (r: SandboxRun, address: string): Promise<string> =>
  (await r.api('GET', `/api/v2/solana/balances/${address}`)).body.data.balance;
const head = async (r: SandboxRun, chain: string): Promise<number> => {
  const answer = await r.api('GET', `/api/v2/${chain}/blocks/number`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data.blocknumber;
};
const lookup = (r: SandboxRun, chain: string, txid: string) =>
  r.api('GET', `/api/v2/${chain}/transactions/${txid}`);

/** What the first run did, checked by the later ones. */
const before = {
  tokens: {} as SandboxRun['info']['chains'],
  eth: { from: '', to: '', txids: [] as string[], fromBalance: '', toBalance: '', head: 0 },
  tron: { from: '', to: '', txids: [] as string[], fromBalance: '', toBalance: '', head: 0 },
  solana: { address: '', txid: '', head: 0 },
  history: { ethereum: [] as string[], tron: [] as string[] },
};

describe('npm run sandbox on the same SANDBOX_DIR', () => {
  it('mines EVM blocks with no transactions, and a Ctrl-C restart keeps funds, transactions, tokens and block numbers', async () => {
    showSandboxOnFailure();
    // Saves only when stopped: what the restart finds was written by the Ctrl-C.
    let r = await start({ SANDBOX_SNAPSHOT_INTERVAL: '0' });
    before.tokens = r.info.chains;

    const eth = before.eth;
    eth.from = await newAddress(r, 'ethereum');
    eth.to = await newAddress(r, 'ethereum');
    eth.txids.push(await faucet(r, 'ethereum', eth.from, '2'));
    eth.txids.push(await sendCoin(r, 'ethereum', eth.from, eth.to, '0.5'));

    const tron = before.tron;
    tron.from = await newAddress(r, 'tron');
    tron.to = await newAddress(r, 'tron');
    tron.txids.push(await faucet(r, 'tron', tron.from, '50'));
    tron.txids.push(await sendCoin(r, 'tron', tron.from, tron.to, '5'));
    // The Tron send lands in the next block (3 s).
    await until('the Tron send mined', async () => (await trxBalance(r, tron.to)) === '5000000');

    // Interval mining: the EVM head grows while nothing is sent.
    const idle = await head(r, 'ethereum');
    await until('EVM blocks with no transaction', async () => (await head(r, 'ethereum')) >= idle + 2);

    eth.fromBalance = await ethBalance(r, eth.from);
    eth.toBalance = await ethBalance(r, eth.to);
    expect(eth.toBalance).toBe('0.500000000000000000');
    tron.fromBalance = await trxBalance(r, tron.from);
    tron.toBalance = await trxBalance(r, tron.to);
    for (const chain of ['ethereum', 'tron'] as const) {
      const history = await r.api('GET', `/api/v2/${chain}/transactions?page=1`);
      expect(history.status, history.text).toBe(200);
      before.history[chain] = history.body.data.map((entry: { txid: string }) => entry.txid);
    }
    eth.head = await head(r, 'ethereum');
    tron.head = await head(r, 'tron');
    const solana = before.solana;
    solana.address = await newAddress(r, 'solana');
    solana.txid = await faucet(r, 'solana', solana.address, '1.25');
    await until(
      'the Solana airdrop landed',
      async () => (await solBalance(r, solana.address)) === '1.250000000',
    );
    solana.head = await head(r, 'solana');
    await stop('SIGINT');
    expect(processesNaming(dir), 'processes left by the sandbox').toEqual([]);

    r = await start({ SANDBOX_SNAPSHOT_INTERVAL: '1' });
    // Token addresses do not move: webhooks and saved addresses keep working.
    expect(r.info.chains).toEqual(before.tokens);
    expect(await ethBalance(r, eth.from)).toBe(eth.fromBalance);
    expect(await ethBalance(r, eth.to)).toBe(eth.toBalance);
    expect(await trxBalance(r, tron.from)).toBe(tron.fromBalance);
    expect(await trxBalance(r, tron.to)).toBe(tron.toBalance);
    expect(await solBalance(r, before.solana.address)).toBe('1.250000000');
    expect((await lookup(r, 'solana', before.solana.txid)).status).toBe(200);
    expect(await head(r, 'solana')).toBeGreaterThan(before.solana.head);
    // Every transaction of the history is still on chain.
    for (const chain of ['ethereum', 'tron'] as const) {
      const history = await r.api('GET', `/api/v2/${chain}/transactions?page=1`);
      const txids = history.body.data.map((entry: { txid: string }) => entry.txid);
      expect(txids).toEqual(before.history[chain]);
      for (const txid of [...txids, ...before[chain === 'ethereum' ? 'eth' : 'tron'].txids]) {
        const found = await lookup(r, chain, txid);
        expect(found.status, `${chain} ${txid}: ${found.text}`).toBe(200);
      }
    }
    // Block numbers carry on from where they were, and keep growing.
    expect(await head(r, 'ethereum')).toBeGreaterThanOrEqual(eth.head);
    expect(await head(r, 'tron')).toBeGreaterThanOrEqual(tron.head);
    await until('the EVM head growing', async () => (await head(r, 'ethereum')) > eth.head);
    await until('the Tron head growing', async () => (await head(r, 'tron')) > tron.head);
    // A send after the restart works on the carried-on chain.
    expect(await sendCoin(r, 'ethereum', eth.to, eth.from, '0.1')).toMatch(/^0x[0-9a-f]{64}$/);
  }, 300_000);

  it('a kill -9 loses at most the last save interval', async () => {
    showSandboxOnFailure();
    let r = run as SandboxRun;
    const ethAddress = await newAddress(r, 'ethereum');
    const tronAddress = await newAddress(r, 'tron');
    const ethTxid = await faucet(r, 'ethereum', ethAddress, '3');
    const tronTxid = await faucet(r, 'tron', tronAddress, '7');
    const ethHead = await head(r, 'ethereum');
    // Past one save interval (1 s) and its tick.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await stop('SIGKILL');
    // Not even anvil survives: its watchdog kills it when the sandbox's pipe to it closes.
    await until('anvil gone after kill -9', async () => processesNaming(dir).length === 0, 10_000);

    r = await start({ SANDBOX_SNAPSHOT_INTERVAL: '1' });
    expect(await ethBalance(r, ethAddress)).toBe('3.000000000000000000');
    expect(await trxBalance(r, tronAddress)).toBe('7000000');
    expect((await lookup(r, 'ethereum', ethTxid)).status).toBe(200);
    expect((await lookup(r, 'tron', tronTxid)).status).toBe(200);
    expect(await head(r, 'ethereum')).toBeGreaterThanOrEqual(ethHead);
    await stop('SIGINT');
    // This run's anvils loaded a saved state, so their command lines name the folder: all are gone.
    expect(processesNaming(dir), 'processes left by the sandbox').toEqual([]);
  }, 300_000);

  it('--reset starts clean: fresh chains and a fresh database', async () => {
    showSandboxOnFailure();
    const r = await start({}, ['--reset']);
    expect(r.output()).not.toContain('--reset left');
    expect(await ethBalance(r, before.eth.to)).toMatch(/^0(\.0+)?$/);
    expect(await trxBalance(r, before.tron.to)).toBe('0');
    expect((await lookup(r, 'ethereum', before.eth.txids[1] as string)).status).toBe(422);
    expect((await lookup(r, 'tron', before.tron.txids[1] as string)).status).toBe(422);
    expect((await r.api('GET', '/api/v2/ethereum/transactions?page=1')).body.data).toEqual([]);
    // A fresh chain deploys the demo tokens where a fresh chain always has them.
    expect(r.info.chains).toEqual(before.tokens);
    await stop('SIGINT');
  }, 300_000);
});
