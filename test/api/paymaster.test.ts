// The paymaster and sweeps through the HTTP API of a real gateway on the run's BSC anvil: budgets and plan
// allowances reserved atomically, refusals that reserve nothing, callbacks, Idempotency-Key, and a sweep
// whose sponsor loses exactly what its ledger holds. BSC, because its devnet's gas price does not move
// (base fee 0, legacy pricing): every quote of the same transfer is the same, so a budget "for exactly
// two" is exact, and what a job spends is exactly what it reserved.

import { Webhook } from 'standardwebhooks';
import { formatUnits, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodStart } from '../../src/accounts/periods.ts';
import { DEFAULT_PLANS } from '../../src/config/plans.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { committed } from '../../src/sponsorship/ledger.ts';
import { WebhookSender } from '../../src/webhooks/delivery-attempt.ts';
import { type BroadcastHoldProxy, startBroadcastHoldProxy } from '../helpers/broadcast-hold-proxy.ts';
import {
  type ApiResponse,
  type RequestOptions,
  startGateway,
  type TestGateway,
  testDatabase,
} from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { type SharedEvmDevnet, sharedEvmDevnet } from '../helpers/shared-devnets.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const CHAIN = 'bsc';
const PASSWORD = 'correct horse battery';
const USDT_DECIMALS = 6;
const WHOLE = 10n ** BigInt(USDT_DECIMALS);
/** How many addresses the sweep gathers from (the 50 per chain). */
const SWEPT = 50;
/** The enterprise plan's allowance of sponsored fees on BSC, in BNB. */
const ALLOWANCE = '1000';

let devnet: SharedEvmDevnet;
let gw: TestGateway;
/** Postgres only: a second instance on the same schema, reserving from the same budget. */
let second: TestGateway | undefined;
let roles: BackgroundRoles;
let receiver: WebhookReceiver;
let token: string;
let usdt: string;
let sponsor: { userId: string; address: string; privateKey: string };
/** Between the gateway and the anvil: holds the second broadcast after `holdFrom` is set, until forwarded. */
let proxy: BroadcastHoldProxy;
let holdFrom: number | null = null;
let broadcasts = 0;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/${CHAIN}${path}`, { token, ...options });

/** Chaingateway's plans, enterprise with an allowance of sponsored fees on BSC; pro with none. */
function plans(): string {
  return JSON.stringify(
    DEFAULT_PLANS.map((plan) =>
      plan.name === 'enterprise' ? { ...plan, sponsored: { [CHAIN]: ALLOWANCE } } : plan,
    ),
  );
}

async function newAddress(as: string = token): Promise<string> {
  const res = await api('POST', '/addresses', { token: as, json: { password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  return res.body.data[0].address;
}

/** A password address holding `units` of USDT and none of the coin. */
async function tokenHolder(units: bigint, as: string = token): Promise<string> {
  const address = await newAddress(as);
  await devnet.faucetErc20(usdt, address, units);
  return address;
}

function transferOf(from: string, to: string, units: bigint) {
  return { type: 'BEP20', from, to, contractaddress: usdt, amount: formatUnits(units, USDT_DECIMALS) };
}

/** The sponsor's whole cost of a transfer, as the estimate answers it, in wei. */
async function quoted(from: string, to: string, units: bigint): Promise<bigint> {
  const res = await api('POST', '/paymaster/estimate', { json: transferOf(from, to, units) });
  expect(res.status, res.text).toBe(200);
  return parseUnits(res.body.data.paymaster_fee, 18);
}

/** What the sponsor's budget is checked against now: spent this month plus reserved by open jobs. */
const budgetUsed = () =>
  committed(gw.ctx.store.db, { chain: CHAIN, network: 'mainnet' }, periodStart('month', new Date()));

async function setBudget(budget: bigint | null): Promise<void> {
  await gw.ctx.sponsorship.sponsors.set(
    {
      chain: CHAIN,
      network: 'mainnet',
      userId: sponsor.userId,
      address: sponsor.address,
      budget,
      period: 'month',
    },
    sponsor.privateKey,
  );
}

async function jobRows(): Promise<number> {
  const rows = await gw.ctx.store.db.selectFrom('sponsor_jobs').select('id').execute();
  return rows.length;
}

/** Waits until every sponsored job has ended, so that what is committed stops moving. */
async function idle(): Promise<void> {
  await waitFor(async () => {
    const open = await gw.ctx.store.db
      .selectFrom('sponsor_jobs')
      .select('id')
      .where('status', 'in', ['pending', 'processing'])
      .execute();
    return open.length === 0 ? true : undefined;
  }, 60_000);
}

/** A paymaster job's answer once it has ended. */
async function jobEnd(id: string): Promise<{ status: string; txid: string | null; id: string }> {
  return waitFor(async () => {
    const res = await api('GET', `/paymaster/${id}`);
    expect(res.status, res.text).toBe(200);
    const { status } = res.body.data;
    return status === 'completed' || String(status).startsWith('failed') ? res.body.data : undefined;
  }, 60_000);
}

/** A sweep's answer once it is completed (every address's job ended). */
async function sweepEnd(id: string) {
  return waitFor(async () => {
    const got = await api('GET', `/sweeps/${id}`);
    expect(got.status, got.text).toBe(200);
    return got.body.data.status === 'completed' ? got.body.data : undefined;
  }, 120_000);
}

async function ledgerSum(jobIds: readonly string[]): Promise<bigint> {
  if (jobIds.length === 0) return 0n;
  const rows = await gw.ctx.store.db
    .selectFrom('sponsor_ledger')
    .select('units')
    .where('job_id', 'in', jobIds)
    .execute();
  return rows.reduce((sum, row) => sum + BigInt(row.units), 0n);
}

const nativeBalance = async (address: string) =>
  BigInt(await devnet.rpc<string>('eth_getBalance', [address, 'latest']));
const tokenBalance = async (address: string) =>
  parseUnits((await api('GET', `/balances/${address}/bep20/${usdt}`)).body.data, USDT_DECIMALS);

function expectRefusedOn(res: ApiResponse, field: string): void {
  expect(res.status, res.text).toBe(422);
  expect(JSON.stringify(res.body)).toContain(field);
}

beforeAll(async () => {
  devnet = await sharedEvmDevnet(CHAIN);
  usdt = devnet.tokens.erc20.USDT;
  receiver = await startWebhookReceiver();
  proxy = await startBroadcastHoldProxy(devnet.url, (_path, body) => {
    if (!body.includes('eth_sendRawTransaction')) return false;
    broadcasts++;
    return holdFrom !== null && broadcasts === holdFrom + 2;
  });
  ({ gw, roles } = await startWatchingGateway({
    [`${CHAIN.toUpperCase()}_MAINNET_URLS`]: proxy.url,
    PLANS: plans(),
    // The held broadcast is given up (and sent again by the job) after this, not the default 10 s.
    NODE_TIMEOUT_MS: '4000',
  }));
  ({ token } = await gw.userToken('customer@example.com', 'enterprise'));
  if (testDatabase() === 'postgres') {
    second = await startGateway({
      env: withUnnamedNodesDead({
        [`${CHAIN.toUpperCase()}_MAINNET_URLS`]: devnet.url,
        PLANS: plans(),
        LOG_LEVEL: 'warn',
      }),
      database: gw.database,
    });
  }
  const operator = await gw.userToken('operator@example.com', 'enterprise');
  const address = await newAddress(operator.token);
  await devnet.faucetNative(address, parseUnits('1000', 18));
  const place = { userId: operator.userId, chain: CHAIN, network: 'mainnet' as const };
  const privateKey = await gw.ctx.custody.exportKey(place, address, PASSWORD);
  sponsor = { userId: operator.userId, address, privateKey };
  await setBudget(null);
}, 120_000);

afterAll(async () => {
  await roles?.stop();
  await second?.close();
  await gw?.close();
  await receiver?.close();
  await proxy?.close();
});

describe('the sponsor budget', () => {
  it('refuses a transfer whose quote is over what is left (nothing reserved, no job), and takes it within', async () => {
    await idle();
    const from = await tokenHolder(5n * WHOLE);
    const to = await newAddress();
    const cost = await quoted(from, to, 2n * WHOLE);
    expect(cost).toBeGreaterThan(0n);
    const used = await budgetUsed();
    await setBudget(used + cost - 1n);
    const jobs = await jobRows();
    const body = { ...transferOf(from, to, 2n * WHOLE), password: PASSWORD };
    const refused = await api('POST', '/paymaster', { json: body });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toMatch(/^The sponsor's budget for this month is spent: /);
    expect(await jobRows()).toBe(jobs);
    expect(await budgetUsed()).toBe(used);

    await setBudget(used + cost);
    const taken = await api('POST', '/paymaster', { json: body });
    expect(taken.status, taken.text).toBe(201);
    expect(taken.body.data.status).toBe('pending');
    const job = await jobEnd(taken.body.data.id);
    expect(job.status).toBe('completed');
    expect(await tokenBalance(to)).toBe(2n * WHOLE);
    await setBudget(null);
  });

  it('takes exactly two of six concurrent transfers when the budget pays for two (on Postgres, from two instances)', async () => {
    await idle();
    const holders = await Promise.all(Array.from({ length: 6 }, () => tokenHolder(3n * WHOLE)));
    const recipients = await Promise.all(holders.map(() => newAddress()));
    const cost = await quoted(holders[0] ?? '', recipients[0] ?? '', WHOLE);
    const used = await budgetUsed();
    // Room for two, and half a third: the third must not fit.
    const budget = used + 2n * cost + cost / 2n;
    await setBudget(budget);
    const jobs = await jobRows();
    const instances = second === undefined ? [gw] : [gw, second];
    const answers = await Promise.all(
      holders.map((from, i) =>
        (instances[i % instances.length] ?? gw).request('POST', `/api/v2/${CHAIN}/paymaster`, {
          token,
          json: { ...transferOf(from, recipients[i] ?? '', WHOLE), password: PASSWORD },
        }),
      ),
    );
    const taken = answers.filter((res) => res.status === 201);
    const refused = answers.filter((res) => res.status !== 201);
    expect(taken.length, answers.map((res) => res.text).join('\n')).toBe(2);
    for (const res of refused) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(/^The sponsor's budget for this month is spent: /);
    }
    expect(await jobRows()).toBe(jobs + 2);
    for (const res of taken) expect((await jobEnd(res.body.data.id)).status).toBe('completed');
    // Never past the budget. Not bounded by twice the quote above: each job reserves the fee of the moment
    // it is made, which the chain's base fee may have raised a little since.
    expect(await budgetUsed()).toBeLessThanOrEqual(budget);
    await setBudget(null);
  });

  it('counts a job midway (its top-up spent, its transfer not yet mined) once, not its reservation and its spending', async () => {
    await idle();
    const holders = await Promise.all([tokenHolder(3n * WHOLE), tokenHolder(3n * WHOLE)]);
    const recipients = await Promise.all([newAddress(), newAddress()]);
    const cost = await quoted(holders[0] ?? '', recipients[0] ?? '', WHOLE);
    const used = await budgetUsed();
    await setBudget(used + 2n * cost + cost / 2n);
    const create = (i: number) =>
      api('POST', '/paymaster', {
        json: { ...transferOf(holders[i] ?? '', recipients[i] ?? '', WHOLE), password: PASSWORD },
      });
    // The first job's top-up goes through; its transfer, the next broadcast, is held.
    holdFrom = broadcasts;
    const first = await create(0);
    expect(first.status, first.text).toBe(201);
    await proxy.held;
    const topUp = await ledgerSum([first.body.data.id]);
    expect(topUp).toBeGreaterThan(0n);
    expect(await budgetUsed()).toBe(used + cost);
    const second = await create(1);
    expect(second.status, second.text).toBe(201);
    await proxy.forward();
    for (const res of [first, second]) expect((await jobEnd(res.body.data.id)).status).toBe('completed');
    await setBudget(null);
  });
});

describe("the plan's allowance", () => {
  it('refuses a user whose plan has no allowance on the chain, and shows none on the account', async () => {
    const pro = await gw.userToken('pro@example.com', 'pro');
    const from = await tokenHolder(2n * WHOLE, pro.token);
    const to = await newAddress(pro.token);
    const jobs = await jobRows();
    const res = await api('POST', '/paymaster', {
      token: pro.token,
      json: { ...transferOf(from, to, WHOLE), password: PASSWORD },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.message).toBe(`Your plan pro has no allowance of sponsored fees on ${CHAIN}`);
    expect(await jobRows()).toBe(jobs);
    const account = await gw.request('GET', '/api/account', { token: pro.token });
    expect(account.status, account.text).toBe(200);
    expect(account.body.data.sponsored_fees).toEqual([]);
  });

  it('shows allowance, spent and left on the account; left drops by exactly the ledger of a completed job', async () => {
    await idle();
    const allowance = async () => {
      const res = await gw.request('GET', '/api/account', { token });
      expect(res.status, res.text).toBe(200);
      const row = res.body.data.sponsored_fees.find(
        (fee: { chain: string; network: string }) => fee.chain === CHAIN && fee.network === 'mainnet',
      );
      expect(row, res.text).toMatchObject({ symbol: 'BNB', allowance: ALLOWANCE });
      return { spent: parseUnits(row.spent, 18), left: parseUnits(row.left, 18) };
    };
    const before = await allowance();
    expect(before.spent + before.left).toBe(parseUnits(ALLOWANCE, 18));
    const from = await tokenHolder(2n * WHOLE);
    const created = await api('POST', '/paymaster', {
      json: { ...transferOf(from, await newAddress(), WHOLE), password: PASSWORD },
    });
    expect(created.status, created.text).toBe(201);
    expect((await jobEnd(created.body.data.id)).status).toBe('completed');
    const spent = await ledgerSum([created.body.data.id]);
    expect(spent).toBeGreaterThan(0n);
    const job = await api('GET', `/paymaster/${created.body.data.id}`);
    expect(parseUnits(job.body.data.paymaster_fee, 18)).toBe(spent);
    expect(job.body.data.fee_symbol).toBe('BNB');
    const after = await allowance();
    expect(before.left - after.left).toBe(spent);
    expect(after.spent - before.spent).toBe(spent);
  });
});

describe('refusals', () => {
  it('answers 503 on create and estimate while no sponsor is set', async () => {
    const from = await tokenHolder(2n * WHOLE);
    const to = await newAddress();
    await gw.ctx.sponsorship.sponsors.remove(CHAIN, 'mainnet');
    try {
      const jobs = await jobRows();
      const estimate = await api('POST', '/paymaster/estimate', { json: transferOf(from, to, WHOLE) });
      expect(estimate.status, estimate.text).toBe(503);
      expect(estimate.body.message).toMatch(/^No sponsor pays fees on bsc mainnet/);
      const create = await api('POST', '/paymaster', {
        json: { ...transferOf(from, to, WHOLE), password: PASSWORD },
      });
      expect(create.status, create.text).toBe(503);
      const sweep = await api('POST', '/sweeps', { json: { to, contractaddress: usdt, password: PASSWORD } });
      expect(sweep.status, sweep.text).toBe(503);
      expect(await jobRows()).toBe(jobs);
      // Said before the token is read from a node (the testnet's is dead).
      const testnet = await api('POST', '/sweeps', {
        json: { to, contractaddress: usdt, password: PASSWORD },
        headers: { 'x-network': 'testnet' },
      });
      expect(testnet.status, testnet.text).toBe(503);
      expect(testnet.body.message).toMatch(/^No sponsor pays fees on bsc testnet/);
    } finally {
      await setBudget(null);
    }
  });

  it('answers 422 on Bitcoin: it pays its fee from the coins it moves', async () => {
    const bitcoin = (method: string, path: string, json?: unknown) =>
      gw.request(method, `/api/v2/bitcoin${path}`, { token, ...(json === undefined ? {} : { json }) });
    const created = await bitcoin('POST', '/addresses', { password: PASSWORD });
    expect(created.status, created.text).toBe(201);
    const from = created.body.data[0].address;
    const other = await bitcoin('POST', '/addresses', {});
    const to = other.body.data[0].address;
    const transfer = { type: 'BTC', from, to, amount: '0.001' };
    const answers = [
      await bitcoin('POST', '/paymaster/estimate', transfer),
      await bitcoin('POST', '/paymaster', { ...transfer, password: PASSWORD }),
      await bitcoin('POST', '/sweeps', { to, password: PASSWORD }),
      // Said before the key is proven: there is nothing to sponsor whatever the caller proves.
      await bitcoin('POST', '/paymaster', { ...transfer, password: 'not the password' }),
      await bitcoin('POST', '/paymaster', { ...transfer, from: to }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(/pays its fee from the coins it moves/);
    }
  });

  it("refuses a wrong password (401) and another address's private key, reserving nothing", async () => {
    await idle();
    const from = await tokenHolder(2n * WHOLE);
    const other = await newAddress();
    const exported = await api('POST', `/addresses/export/${other}/privatekey`, {
      json: { password: PASSWORD },
    });
    expect(exported.status, exported.text).toBe(200);
    const to = await newAddress();
    const jobs = await jobRows();
    const used = await budgetUsed();
    const wrong = await api('POST', '/paymaster', {
      json: { ...transferOf(from, to, WHOLE), password: 'not the password' },
    });
    expect(wrong.status, wrong.text).toBe(401);
    expect(wrong.body.message).toBe('Wrong password provided');
    const foreign = await api('POST', '/paymaster', {
      json: { ...transferOf(from, to, WHOLE), privatekey: exported.body.data.private_key },
    });
    expect(foreign.status, foreign.text).toBeGreaterThanOrEqual(400);
    expect(foreign.status, foreign.text).toBeLessThan(500);
    expect(await jobRows()).toBe(jobs);
    expect(await budgetUsed()).toBe(used);
    expect(await tokenBalance(to)).toBe(0n);
  });

  it('refuses a transfer the pre-flight knows will fail (more than it holds), reserving nothing', async () => {
    await idle();
    const from = await tokenHolder(WHOLE);
    const to = await newAddress();
    const jobs = await jobRows();
    const used = await budgetUsed();
    const estimate = await api('POST', '/paymaster/estimate', { json: transferOf(from, to, 2n * WHOLE) });
    expect(estimate.status, estimate.text).toBe(422);
    const create = await api('POST', '/paymaster', {
      json: { ...transferOf(from, to, 2n * WHOLE), password: PASSWORD },
    });
    expect(create.status, create.text).toBe(422);
    const unproven = await api('POST', '/paymaster', { json: transferOf(from, to, WHOLE) });
    expect(unproven.status, unproven.text).toBeGreaterThanOrEqual(400);
    expect(unproven.status, unproven.text).toBeLessThan(500);
    expect(await jobRows()).toBe(jobs);
    expect(await budgetUsed()).toBe(used);
  });

  it('names a bad address field in a 422 before any node call (the testnet node is dead)', async () => {
    const from = await newAddress();
    const testnet = { 'x-network': 'testnet' };
    const base = transferOf(from, from, WHOLE);
    for (const field of ['from', 'to', 'contractaddress'] as const) {
      const json = { ...base, [field]: '0x1234', password: PASSWORD };
      const create = await api('POST', '/paymaster', { json, headers: testnet });
      expectRefusedOn(create, field);
      const estimate = await api('POST', '/paymaster/estimate', { json, headers: testnet });
      expectRefusedOn(estimate, field);
    }
    const sweep = await api('POST', '/sweeps', { json: { to: '0x1234' }, headers: testnet });
    expectRefusedOn(sweep, 'to');
  });
});

describe('callback_url', () => {
  it('gets one POST signed under the callback_secret when the job completes: the job, with its txid', async () => {
    const from = await tokenHolder(2n * WHOLE);
    const to = await newAddress();
    const created = await api('POST', '/paymaster', {
      json: { ...transferOf(from, to, WHOLE), password: PASSWORD, callback_url: `${receiver.url}/job` },
    });
    expect(created.status, created.text).toBe(201);
    const { id, callback_secret: secret } = created.body.data;
    expect(secret).toMatch(/^whsec_/);
    const job = await jobEnd(id);
    expect(job.status).toBe('completed');
    const hit = await waitFor(() => receiver.received.find((r) => r.path === '/job'), 30_000);
    const headers = Object.fromEntries(
      Object.entries(hit.headers).map(([name, value]) => [name, String(value)]),
    );
    const body = new Webhook(secret).verify(hit.body, headers) as Record<string, unknown>;
    expect(body).toMatchObject({ id, status: 'completed', txid: job.txid, from, to });
    await waitFor(async () => {
      const row = await gw.ctx.store.db
        .selectFrom('sponsor_jobs')
        .select('callback_state')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return row.callback_state === 'delivered' ? true : undefined;
    }, 10_000);
    // A few more passes of the runner (it polls every 50 ms): still the one POST.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((r) => r.path === '/job')).toHaveLength(1);
  });

  it('refuses a callback_url to a private address outside the allowlist: 422 on callback_url', async () => {
    const from = await tokenHolder(2n * WHOLE);
    const jobs = await jobRows();
    const res = await api('POST', '/paymaster', {
      json: {
        ...transferOf(from, await newAddress(), WHOLE),
        password: PASSWORD,
        callback_url: 'http://10.20.30.40/hook',
      },
    });
    expectRefusedOn(res, 'callback_url');
    expect(await jobRows()).toBe(jobs);
  });
});

describe('Idempotency-Key', () => {
  it('makes one paymaster job for a key given twice, the second answer replayed', async () => {
    const from = await tokenHolder(2n * WHOLE);
    const json = { ...transferOf(from, await newAddress(), WHOLE), password: PASSWORD };
    const headers = { 'idempotency-key': `pm-${from}` };
    const jobs = await jobRows();
    const first = await api('POST', '/paymaster', { json, headers });
    expect(first.status, first.text).toBe(201);
    const second = await api('POST', '/paymaster', { json, headers });
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await jobRows()).toBe(jobs + 1);
    expect((await jobEnd(first.body.data.id)).status).toBe('completed');
  });

  it('makes one sweep for a key given twice, the second answer replayed', async () => {
    const empty = await newAddress();
    const json = { to: await newAddress(), contractaddress: usdt, from: [empty], password: PASSWORD };
    const headers = { 'idempotency-key': `sweep-${empty}` };
    const sweeps = async () => (await gw.ctx.store.db.selectFrom('sweeps').select('id').execute()).length;
    const before = await sweeps();
    const first = await api('POST', '/sweeps', { json, headers });
    expect(first.status, first.text).toBe(202);
    const second = await api('POST', '/sweeps', { json, headers });
    expect(second.status, second.text).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await sweeps()).toBe(before + 1);
  });

  it('takes no key on the estimate, a read: each answer is its own', async () => {
    const from = await tokenHolder(2n * WHOLE);
    const json = transferOf(from, await newAddress(), WHOLE);
    const headers = { 'idempotency-key': `estimate-${from}` };
    for (let i = 0; i < 2; i++) {
      const res = await api('POST', '/paymaster/estimate', { json, headers });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
  });
});

describe('a sweep', () => {
  it("skips, with the budget's reason, the addresses the sponsor's budget no longer pays for", async () => {
    await idle();
    const holders = [
      await tokenHolder(2n * WHOLE),
      await tokenHolder(2n * WHOLE),
      await tokenHolder(2n * WHOLE),
    ];
    const treasury = await newAddress();
    const cost = await quoted(holders[0] ?? '', treasury, 2n * WHOLE);
    await setBudget((await budgetUsed()) + 2n * cost + cost / 2n);
    try {
      const res = await api('POST', '/sweeps', {
        json: { to: treasury, contractaddress: usdt, from: holders, password: PASSWORD },
      });
      expect(res.status, res.text).toBe(202);
      const sweep = await sweepEnd(res.body.data.id);
      expect(sweep.addresses.map((row: { address: string }) => row.address)).toEqual(holders.slice(0, 2));
      for (const row of sweep.addresses) expect(row.status, JSON.stringify(row)).toBe('completed');
      expect(sweep.skipped).toHaveLength(1);
      expect(sweep.skipped[0].address).toBe(holders[2]);
      expect(sweep.skipped[0].reason).toMatch(/^The sponsor's budget for this month is spent: /);
      expect(await tokenBalance(treasury)).toBe(4n * WHOLE);
    } finally {
      await setBudget(null);
    }
  });

  it('moves an address named twice in `from` once', async () => {
    await idle();
    const holder = await tokenHolder(2n * WHOLE);
    const treasury = await newAddress();
    const res = await api('POST', '/sweeps', {
      json: { to: treasury, contractaddress: usdt, from: [holder, holder], password: PASSWORD },
    });
    expect(res.status, res.text).toBe(202);
    const sweep = await sweepEnd(res.body.data.id);
    expect(sweep.addresses, JSON.stringify(sweep)).toHaveLength(1);
    expect(sweep.addresses[0].status).toBe('completed');
    expect(await tokenBalance(treasury)).toBe(2n * WHOLE);
  });

  it('leaves out its destination however its case is written, sweeping every address of the caller', async () => {
    await idle();
    const own = await gw.userToken('treasurer@example.com', 'enterprise');
    const treasury = await tokenHolder(WHOLE, own.token);
    const other = await tokenHolder(2n * WHOLE, own.token);
    const res = await api('POST', '/sweeps', {
      token: own.token,
      json: { to: treasury.toLowerCase(), contractaddress: usdt, password: PASSWORD },
    });
    expect(res.status, res.text).toBe(202);
    const sweep = await waitFor(async () => {
      const got = await api('GET', `/sweeps/${res.body.data.id}`, { token: own.token });
      return got.body.data.status === 'completed' ? got.body.data : undefined;
    }, 60_000);
    const moved = sweep.addresses.map((row: { address: string }) => row.address);
    expect(moved, JSON.stringify(sweep)).toEqual([other]);
    expect(sweep.skipped.map((row: { address: string }) => row.address)).not.toContain(treasury);
    expect(await tokenBalance(treasury)).toBe(3n * WHOLE);
  });

  it('gathers the coin: each address pays its own fee, the treasury gets what the sweep says it moved', async () => {
    await idle();
    const holders = [await newAddress(), await newAddress(), await newAddress()];
    for (const holder of holders) await devnet.faucetNative(holder, parseUnits('0.01', 18));
    const treasury = await newAddress();
    const sponsorBefore = await nativeBalance(sponsor.address);
    const res = await api('POST', '/sweeps', { json: { to: treasury, from: holders, password: PASSWORD } });
    expect(res.status, res.text).toBe(202);
    const sweep = await sweepEnd(res.body.data.id);
    expect(sweep.skipped).toEqual([]);
    expect(sweep.addresses).toHaveLength(3);
    let moved = 0n;
    for (const row of sweep.addresses) {
      expect(row.status, JSON.stringify(row)).toBe('completed');
      moved += parseUnits(row.amount, 18);
    }
    expect(await nativeBalance(treasury)).toBe(moved);
    const spent = await ledgerSum(sweep.addresses.map((row: { job_id: string }) => row.job_id));
    expect(sponsorBefore - (await nativeBalance(sponsor.address))).toBe(spent);
  });

  it('tells its end to callback_url once, signed, and refuses a private one', async () => {
    const refused = await api('POST', '/sweeps', {
      json: { to: await newAddress(), contractaddress: usdt, callback_url: 'http://192.168.7.7/hook' },
    });
    expectRefusedOn(refused, 'callback_url');
    const empty = await newAddress();
    const res = await api('POST', '/sweeps', {
      json: {
        to: await newAddress(),
        contractaddress: usdt,
        from: [empty],
        password: PASSWORD,
        callback_url: `${receiver.url}/sweep`,
      },
    });
    expect(res.status, res.text).toBe(202);
    const { id, callback_secret: secret } = res.body.data;
    expect(secret).toMatch(/^whsec_/);
    await sweepEnd(id);
    const hit = await waitFor(() => receiver.received.find((r) => r.path === '/sweep'), 30_000);
    const headers = Object.fromEntries(
      Object.entries(hit.headers).map(([name, value]) => [name, String(value)]),
    );
    const body = new Webhook(secret).verify(hit.body, headers) as Record<string, unknown>;
    expect(body).toMatchObject({
      id,
      status: 'completed',
      addresses: [],
      skipped: [{ address: empty, reason: 'holds nothing to sweep' }],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((r) => r.path === '/sweep')).toHaveLength(1);
  });

  it('sends a callback once when two passes find it due at the same time', async () => {
    // Two runners, as two instances (or a timer's pass beside a wake-up's) would run them.
    const runners = [0, 1].map(() =>
      gw.ctx.sponsorship.runner(
        new WebhookSender({
          masterKey: gw.ctx.masterKey,
          allowlist: gw.ctx.webhookAllowlist,
          timeoutMs: 5_000,
          connectionsPerOrigin: 4,
          now: () => new Date(),
        }),
        gw.ctx.logger,
      ),
    );
    await roles.stop();
    try {
      const res = await api('POST', '/sweeps', {
        json: {
          to: await newAddress(),
          contractaddress: usdt,
          from: [await newAddress()],
          password: PASSWORD,
          callback_url: `${receiver.url}/twice`,
        },
      });
      expect(res.status, res.text).toBe(202);
      const sent = () => receiver.received.filter((r) => r.path === '/twice').length;
      // A pass expands the sweep (nothing to sweep), ends it and sends its callback (the sweep's creation
      // woke both runners up too: one of the passes sends it).
      await runners[0]!.runOnce();
      await waitFor(() => sent() === 1 || undefined, 10_000);
      // Due again, as after a receiver's failure: both passes find it at once, and one sends it.
      await gw.ctx.store.db
        .updateTable('sweeps')
        .set({ callback_state: 'due', callback_next_at: new Date().toISOString() })
        .where('id', '=', res.body.data.id)
        .execute();
      await Promise.all(runners.map((runner) => runner.runOnce()));
      await waitFor(() => sent() === 2 || undefined, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sent()).toBe(2);
    } finally {
      roles = startBackgroundRoles(gw.ctx);
    }
  });

  it('shows a sweep and a job only to their owner, each on its own route', async () => {
    const holder = await tokenHolder(2n * WHOLE);
    const created = await api('POST', '/paymaster', {
      json: { ...transferOf(holder, await newAddress(), WHOLE), password: PASSWORD },
    });
    expect(created.status, created.text).toBe(201);
    const sweep = await api('POST', '/sweeps', {
      json: { to: await newAddress(), contractaddress: usdt, from: [await newAddress()] },
    });
    expect(sweep.status, sweep.text).toBe(202);
    const stranger = await gw.userToken('stranger@example.com', 'enterprise');
    const jobId = created.body.data.id;
    const sweepId = sweep.body.data.id;
    expect((await api('GET', `/paymaster/${jobId}`, { token: stranger.token })).status).toBe(404);
    expect((await api('GET', `/sweeps/${sweepId}`, { token: stranger.token })).status).toBe(404);
    expect((await api('GET', `/sweeps/${jobId}`)).status).toBe(404);
    expect((await api('GET', `/paymaster/${sweepId}`)).status).toBe(404);
    const listed = await api('GET', '/paymaster', { token: stranger.token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toEqual([]);
    expect((await jobEnd(jobId)).status).toBe('completed');
  });

  it(`gathers a token from ${SWEPT} addresses: the treasury gets exactly the sum, the sponsor loses exactly its ledger`, async () => {
    await idle();
    const amounts = Array.from({ length: SWEPT }, (_, i) => WHOLE + BigInt(i) * 1_000n);
    const swept: string[] = [];
    for (const amount of amounts) swept.push(await tokenHolder(amount));
    const small = await tokenHolder(WHOLE / 10n);
    const treasury = await newAddress();
    const sponsorBefore = await nativeBalance(sponsor.address);
    const res = await api('POST', '/sweeps', {
      json: {
        to: treasury,
        contractaddress: usdt,
        from: [...swept, small],
        min_amount: '0.5',
        password: PASSWORD,
      },
    });
    expect(res.status, res.text).toBe(202);
    const id = res.body.data.id;
    const sweep = await sweepEnd(id);
    expect(sweep.skipped).toEqual([{ address: small, reason: 'holds less than min_amount' }]);
    expect(sweep.addresses).toHaveLength(SWEPT);
    for (const row of sweep.addresses) expect(row.status, JSON.stringify(row)).toBe('completed');
    const sum = amounts.reduce((total, amount) => total + amount, 0n);
    expect(await tokenBalance(treasury)).toBe(sum);
    expect(await tokenBalance(small)).toBe(WHOLE / 10n);
    const spent = await ledgerSum(sweep.addresses.map((row: { job_id: string }) => row.job_id));
    expect(spent).toBeGreaterThan(0n);
    expect(sponsorBefore - (await nativeBalance(sponsor.address))).toBe(spent);
  }, 180_000);
});
