import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { utils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';
import { DEFAULT_PLANS } from '../../src/config/plans.ts';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { seededRandom } from '../helpers/seeded-random.ts';
import { type PrivatePostgres, startPrivatePostgres } from './private-postgres.ts';
import { RoleProcess } from './role-processes.ts';

// A Tron sponsor pays for TRC20 transfers from addresses that hold no TRX: each job activates the sender,
// lends it energy and bandwidth by delegation, lets it send, and takes the delegations back. One API process
// takes the paymaster requests; one watcher process runs the jobs and is killed with SIGKILL at seeded
// random moments, several times, then started again: its jobs' short lease lapses and the next run resumes
// them from their notes. At the end the chain is the truth: every job ended, each receiver got its tokens
// once per completed job, the sponsor lends nothing any more, and it lost exactly what the ledger says.

const FULL = process.env['FAULT_FULL'] === '1';
const JOBS = FULL ? 24 : 6;
const KILLS = FULL ? 12 : 3;
/** The shortest lease the setting takes: a killed runner's jobs are resumed seconds later. */
const LEASE_SECONDS = 3;
const WHOLE = 10n ** 6n; // the devnet's USDT has 6 decimals
/**
 * Stake enough to lend every job its energy at once (a TRC20 transfer to a new holder needs about 3,600 TRX
 * of stake on the devnet): a job planned to borrow stake that others borrowed meanwhile fails.
 */
const ENERGY_STAKE_TRX = BigInt(JOBS) * 6_000n;
const BANDWIDTH_STAKE_TRX = 1_000n;

let postgres: PrivatePostgres;
let devnet: TronDevnet;
/** The test's own context on the processes' database: setup, and reading the jobs and the ledger. */
let setup: Awaited<ReturnType<typeof createContext>> | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sponsor-fault-'));
const processes: RoleProcess[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newKey(): { address: string; privateKey: string } {
  const account = utils.accounts.generateAccount();
  return { address: account.address.base58, privateKey: account.privateKey.toLowerCase() };
}

/** The Tron devnet for Tron mainnet; a closed port for every other chain. */
function nodeUrls(): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const chain of servedChains()) {
    for (const network of NETWORKS)
      urls[`${chain.toUpperCase()}_${network.toUpperCase()}_URLS`] = 'http://127.0.0.1:1';
  }
  return { ...urls, TRON_MAINNET_URLS: devnet.url, REQUIRED_CHAINS: 'tron:mainnet' };
}

/** Chaingateway's plans, the enterprise plan allowed sponsored fees on Tron. */
const plans = JSON.stringify(
  DEFAULT_PLANS.map((plan) =>
    plan.name === 'enterprise' ? { ...plan, sponsored: { tron: '1000000' } } : plan,
  ),
);

/** The devnet's answer to a /wallet call. */
async function wallet(route: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(`${devnet.url}/wallet/${route}`, { method: 'POST', body: JSON.stringify(body) });
  return (await answer.json()) as Record<string, unknown>;
}

async function trxBalance(address: string): Promise<bigint> {
  const account = await wallet('getaccount', { address, visible: true });
  return BigInt(String(account['balance'] ?? 0));
}

/** What `address` has delegated to others and not taken back, per resource (sun). */
async function delegatedOut(address: string): Promise<{ energy: bigint; bandwidth: bigint }> {
  const account = await wallet('getaccount', { address, visible: true });
  const resource = (account['account_resource'] ?? {}) as Record<string, unknown>;
  return {
    energy: BigInt(String(resource['delegated_frozenV2_balance_for_energy'] ?? 0)),
    bandwidth: BigInt(String(account['delegated_frozenV2_balance_for_bandwidth'] ?? 0)),
  };
}

beforeAll(async () => {
  [postgres, devnet] = await Promise.all([
    startPrivatePostgres(),
    // Blocks on the wall clock, quickly: a job takes about six of them.
    startTronDevnet({ blockIntervalMs: 500, solidifyLag: 1 }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
  if (setup !== undefined) await closeContext(setup);
  await devnet?.close();
  await postgres?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`kill -9 of the sponsored jobs' runner ${KILLS} times during ${JOBS} Tron paymaster jobs`, () => {
  it('ends every job once, leaves nothing delegated, and the sponsor loses exactly its ledger', async () => {
    const seed = Number(process.env['FAULT_SEED'] ?? Date.now() % 1_000_000);
    console.log(`fault seed ${seed} (FAULT_SEED=${seed} repeats this run)`);
    const random = seededRandom(seed);
    const env: Record<string, string> = {
      ...nodeUrls(),
      DATABASE_URL: postgres.url,
      MASTER_KEY: randomBytes(32).toString('base64'),
      DATA_DIR: dataDir,
      PLANS: plans,
      PRICE_PROVIDERS: 'local',
      NODE_RETRIES: '1',
      SPONSOR_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      LOG_LEVEL: 'warn',
      // Keys are sealed at the test cost: these runs are about crashes, not the key derivation.
      ...TEST_KDF_ENV,
    };

    // The user, and the operator's sponsor: funded, staking for energy and bandwidth to lend, named as the
    // CLI names it, on the database the processes will share (this also migrates it).
    const sponsor = newKey();
    await devnet.faucetTrx(sponsor.address, (ENERGY_STAKE_TRX + BANDWIDTH_STAKE_TRX + 1_000n) * 1_000_000n);
    setup = await createContext(loadConfig(env), { logger: createLogger('silent') });
    const { store, users, sponsorship } = setup;
    const user = await users.createUser('sponsored@example.com', 'enterprise');
    const { token } = await users.createToken(user.id);
    const operator = await users.createUser('operator@example.com', 'enterprise');
    await sponsorship.sponsors.set(
      {
        chain: 'tron',
        network: 'mainnet',
        userId: operator.id,
        address: sponsor.address,
        budget: null,
        period: 'month',
      },
      sponsor.privateKey,
    );

    const api = await RoleProcess.create('api', 'api', env);
    const runner = await RoleProcess.create('watcher', 'watcher', env);
    processes.push(api, runner);
    for (const p of processes) p.start();
    const output = () => processes.map((p) => p.output()).join('\n');
    await Promise.all(processes.map((p) => p.ready())).catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}`);
    });
    const call = (method: string, route: string, json?: unknown) =>
      send(api.apiUrl, method, `/api/v2/tron${route}`, { token, ...(json === undefined ? {} : { json }) });

    for (const [resource, trx] of [
      ['ENERGY', ENERGY_STAKE_TRX],
      ['BANDWIDTH', BANDWIDTH_STAKE_TRX],
    ] as const) {
      const frozen = await call('POST', '/freeze', {
        address: sponsor.address,
        amount: String(trx),
        resource,
        privatekey: sponsor.privateKey,
      });
      expect(frozen.status, frozen.text).toBe(200);
    }
    await devnet.mine(1);
    const sponsorBefore = await trxBalance(sponsor.address);

    // The jobs: job i moves i + 1 USDT from a sender holding only 100 USDT (not even an account on the
    // chain: the sponsor creates it) to a receiver of its own. Half before the kills, half during them.
    const usdt = devnet.tokens.trc20.USDT;
    const jobs: { id: string; from: string; to: string; units: bigint }[] = [];
    const createJob = async (i: number) => {
      const from = newKey();
      const to = newKey().address;
      await devnet.faucetTrc20(usdt, from.address, 100n * WHOLE);
      const units = BigInt(i + 1) * WHOLE;
      const created = await call('POST', '/paymaster', {
        type: 'TRC20',
        from: from.address,
        to,
        contractaddress: usdt,
        amount: String(i + 1),
        privatekey: from.privateKey,
      });
      expect(created.status, created.text).toBe(201);
      jobs.push({ id: created.body.data.id as string, from: from.address, to, units });
    };
    for (let i = 0; i < JOBS / 2; i++) await createJob(i);

    // The kills: the runner is given a seeded random while (enough for a step or a few) before each kill,
    // and is started again after a short pause; the later jobs are asked for meanwhile.
    const later = (async () => {
      for (let i = JOBS / 2; i < JOBS; i++) {
        await sleep(random() * 1_000);
        await createJob(i);
      }
    })();
    /** The steps each kill cut: the notes of the jobs in progress when it landed. */
    const cut: string[][] = [];
    for (let k = 0; k < KILLS; k++) {
      await sleep(300 + random() * 3_000);
      await runner.kill();
      const inProgress = await store.db
        .selectFrom('sponsor_jobs')
        .select('notes_json')
        .where('status', '=', 'processing')
        .execute();
      cut.push(inProgress.map((r) => Object.keys(JSON.parse(r.notes_json) as object).join('+') || 'none'));
      await sleep(random() * 1_000);
      runner.start();
      await runner.ready().catch((error: Error) => {
        throw new Error(`${error.message}\n${output()}`);
      });
    }
    await later;

    // Every job ends: a killed runner's lease lapses and the next run finishes or unwinds it.
    const ended = async () => {
      const rows = await store.db
        .selectFrom('sponsor_jobs')
        .select(['id', 'status', 'txid', 'reason', 'notes_json'])
        .execute();
      return rows.every((r) => r.status === 'completed' || r.status === 'failed') ? rows : undefined;
    };
    const killsEnded = Date.now();
    const rows = await waitFor(ended, 120_000).catch((error: Error) => {
      throw new Error(`${error.message}: a sponsored job never ended\n${output()}`);
    });
    expect(rows.length).toBe(JOBS);
    const failed = rows.filter((r) => r.status === 'failed');
    console.log(
      `${JOBS} jobs, ${KILLS} kills, all ended ${Date.now() - killsEnded} ms after the last restart, ${failed.length} failed${failed.map((r) => `: ${r.reason}`).join('')}; steps noted by the jobs each kill cut: ${JSON.stringify(cut)}`,
    );
    // The kills landed in the middle of jobs, not only between them.
    expect(cut.flat().filter((notes) => notes !== 'none').length).toBeGreaterThan(0);
    // Nothing here should fail: the sponsor has the stake and the senders the tokens.
    expect(failed.map((r) => r.reason)).toEqual([]);

    // Each receiver holds its tokens once, each sender what it did not send.
    await devnet.mine(1);
    for (const job of jobs) {
      const completed = rows.find((r) => r.id === job.id)?.status === 'completed';
      const received = await call('GET', `/balances/${job.to}/trc20/${usdt}`);
      expect(BigInt(received.body.data.balance), `job ${job.id} receiver`).toBe(completed ? job.units : 0n);
      const kept = await call('GET', `/balances/${job.from}/trc20/${usdt}`);
      expect(BigInt(kept.body.data.balance), `job ${job.id} sender`).toBe(
        100n * WHOLE - (completed ? job.units : 0n),
      );
    }

    // Nothing still lent: every delegation taken back.
    expect(await delegatedOut(sponsor.address)).toEqual({ energy: 0n, bandwidth: 0n });
    const index = await wallet('getdelegatedresourceaccountindexv2', {
      value: sponsor.address,
      visible: true,
    });
    expect(index['toAccounts'] ?? []).toEqual([]);

    // The sponsor lost exactly what the ledger holds, to the sun.
    const ledger = await store.db.selectFrom('sponsor_ledger').select(['units']).execute();
    const spent = ledger.reduce((sum, row) => sum + BigInt(row.units), 0n);
    expect(sponsorBefore - (await trxBalance(sponsor.address))).toBe(spent);
  }, 300_000);
});
