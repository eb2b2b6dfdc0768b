// TON's paymaster and sweeps through the HTTP API on the project's TON devnet: the owner's V5R1 wallet
// signs a signed internal request that the sponsor's wallet carries to it with the TON it needs, so an
// address holding only USDT sends it and ends with no TON; the sponsor loses exactly what its ledger says,
// read back from the chain; a TON sweep moves each wallet's balance less its own fee, at no cost to the sponsor.
import { formatUnits, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../devnets/ton/index.ts';
import { DEFAULT_PLANS } from '../../src/config/plans.ts';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { ApiResponse, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';

const PASSWORD = 'correct horse battery';
const TON = 1_000_000_000n;
const USDT = 1_000_000n;
/** A test waits on blocks and the sponsored jobs' traces. */
const TEST_TIMEOUT_MS = 120_000;

let devnet: TonDevnet;
let gw: TestGateway;
let roles: BackgroundRoles;
let token: string;
let usdt: string;
let sponsor: string;

const api = (method: string, path: string, json?: Record<string, unknown>): Promise<ApiResponse> =>
  gw.request(method, `/api/v2/ton${path}`, { token, ...(json === undefined ? {} : { json }) });

/** Chaingateway's plans, enterprise with an allowance of sponsored fees on TON. */
function plans(): string {
  return JSON.stringify(
    DEFAULT_PLANS.map((plan) =>
      plan.name === 'enterprise' ? { ...plan, sponsored: { ton: '1000' } } : plan,
    ),
  );
}

async function newAddress(as: string = token): Promise<string> {
  const res = await gw.request('POST', '/api/v2/ton/addresses', { token: as, json: { password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const data = res.body.data;
  return Array.isArray(data) ? data[0].address : data.address;
}

async function nanotonsOf(address: string): Promise<bigint> {
  const res = await api('GET', `/balances/${address}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.nanotons);
}

async function usdtOf(address: string): Promise<bigint> {
  const res = await api('GET', `/balances/${address}/jetton/${usdt}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.balance_raw);
}

/** What the ledger holds for these jobs, in nanotons. */
async function ledgerSum(jobIds: readonly string[]): Promise<bigint> {
  const rows = await gw.ctx.store.db
    .selectFrom('sponsor_ledger')
    .select('units')
    .where('job_id', 'in', jobIds)
    .execute();
  return rows.reduce((sum, row) => sum + BigInt(row.units), 0n);
}

async function jobEnd(path: string): Promise<Record<string, unknown> & { status: string }> {
  return waitFor(async () => {
    const res = await api('GET', path);
    expect(res.status, res.text).toBe(200);
    const { status } = res.body.data;
    return status === 'completed' || String(status).startsWith('failed') ? res.body.data : undefined;
  }, 90_000);
}

/** Waits until the devnet's newest block is in the gateway's reads (the sponsor's balance settles). */
async function settled(): Promise<void> {
  await devnet.advance(2);
}

beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: 250 });
  usdt = devnet.tokens.jetton.USDT;
  ({ gw, roles, token } = await startWatchingGateway({ TON_MAINNET_URLS: devnet.url, PLANS: plans() }));
  const operator = await gw.userToken('operator@example.com', 'enterprise');
  sponsor = await newAddress(operator.token);
  await devnet.fund(sponsor, 1000n * TON);
  const place = { userId: operator.userId, chain: 'ton', network: 'mainnet' as const };
  const privateKey = await gw.ctx.custody.exportKey(place, sponsor, PASSWORD);
  await gw.ctx.sponsorship.sponsors.set(
    { ...place, address: sponsor, budget: null, period: 'month' },
    privateKey,
  );
}, 120_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await devnet?.close();
});

describe('the TON paymaster', () => {
  it(
    'sends USDT from an address with no TON; the excess returns and the ledger holds exactly what the sponsor lost',
    async () => {
      const from = await newAddress();
      const to = await newAddress();
      await devnet.mintJetton(usdt, from, 5n * USDT);
      const transfer = { type: 'JETTON', from, to, contractaddress: usdt, amount: '2' };
      const estimate = await api('POST', '/paymaster/estimate', transfer);
      expect(estimate.status, estimate.text).toBe(200);
      expect(estimate.body.data.paymaster_fee).toMatch(/^0\.\d+$/);
      await settled();
      const sponsorBefore = await nanotonsOf(sponsor);
      const created = await api('POST', '/paymaster', { ...transfer, password: PASSWORD });
      expect(created.status, created.text).toBe(201);
      const job = await jobEnd(`/paymaster/${created.body.data.id}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      expect(job.txid).toMatch(/^[0-9a-f]{64}$/);
      await settled();
      expect(await usdtOf(to)).toBe(2n * USDT);
      expect(await usdtOf(from)).toBe(3n * USDT);
      expect(await nanotonsOf(from)).toBe(0n);
      const spent = await ledgerSum([created.body.data.id]);
      expect(spent).toBeGreaterThan(0n);
      // The excess came back: the sponsor lost less than the most it could (what it attached and its fee).
      expect(spent).toBeLessThan(parseUnits(estimate.body.data.paymaster_fee, 9));
      expect(sponsorBefore - (await nanotonsOf(sponsor))).toBe(spent);

      // The wallet is deployed now: a second transfer runs on its next seqno.
      const again = await api('POST', '/paymaster', { ...transfer, amount: '1', password: PASSWORD });
      expect(again.status, again.text).toBe(201);
      expect((await jobEnd(`/paymaster/${again.body.data.id}`)).status).toBe('completed');
      await settled();
      expect(await usdtOf(to)).toBe(3n * USDT);
      expect(await nanotonsOf(from)).toBe(0n);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses a jetton transfer of more than the owner holds, before anything is reserved',
    async () => {
      const from = await newAddress();
      await devnet.mintJetton(usdt, from, USDT);
      const res = await api('POST', '/paymaster/estimate', {
        type: 'JETTON',
        from,
        to: sponsor,
        contractaddress: usdt,
        amount: '2',
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(/^Insufficient funds: /);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "refuses to sponsor the sponsor's own jetton transfer: its request would carry the seqno its carrier takes",
    async () => {
      await devnet.mintJetton(usdt, sponsor, USDT);
      const res = await api('POST', '/paymaster/estimate', {
        type: 'JETTON',
        from: sponsor,
        to: await newAddress(),
        contractaddress: usdt,
        amount: '1',
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toBe(`${sponsor} is the sponsor: it cannot sponsor its own transfer`);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'sends TON with the fee paid by the sponsor: the receiver gets the whole amount',
    async () => {
      const from = await newAddress();
      const to = await newAddress();
      await devnet.fund(from, TON);
      await settled();
      const sponsorBefore = await nanotonsOf(sponsor);
      const created = await api('POST', '/paymaster', {
        type: 'TON',
        from,
        to,
        amount: '0.4',
        password: PASSWORD,
      });
      expect(created.status, created.text).toBe(201);
      const job = await jobEnd(`/paymaster/${created.body.data.id}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      await settled();
      expect(await nanotonsOf(to)).toBe(400_000_000n);
      // The owner paid nothing: what the sponsor attached and its wallet did not use stays with it.
      expect(await nanotonsOf(from)).toBeGreaterThanOrEqual(600_000_000n);
      const spent = await ledgerSum([created.body.data.id]);
      expect(sponsorBefore - (await nanotonsOf(sponsor))).toBe(spent);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'sweeps USDT from three addresses and TON from two; the sponsor pays the jettons only',
    async () => {
      const holders = [await newAddress(), await newAddress(), await newAddress()];
      const treasury = await newAddress();
      for (const holder of holders) await devnet.mintJetton(usdt, holder, USDT);
      await settled();
      const sponsorBefore = await nanotonsOf(sponsor);
      const started = await api('POST', '/sweeps', {
        to: treasury,
        contractaddress: usdt,
        from: holders,
        min_amount: formatUnits(USDT / 2n, 6),
        password: PASSWORD,
      });
      expect(started.status, started.text).toBe(202);
      const sweep = await jobEnd(`/sweeps/${started.body.data.id}`);
      const swept = sweep['addresses'] as { address: string; status: string }[];
      expect(swept.filter((row) => row.status !== 'completed')).toEqual([]);
      await settled();
      expect(await usdtOf(treasury)).toBe(3n * USDT);
      const jobs = await gw.ctx.store.db
        .selectFrom('sponsor_jobs')
        .select('id')
        .where('sweep_id', '=', started.body.data.id)
        .execute();
      const spent = await ledgerSum(jobs.map((job) => job.id));
      expect(sponsorBefore - (await nanotonsOf(sponsor))).toBe(spent);

      const tonHolders = [await newAddress(), await newAddress()];
      for (const holder of tonHolders) await devnet.fund(holder, TON);
      await settled();
      const tonTreasury = await newAddress();
      const beforeTon = await nanotonsOf(sponsor);
      const tonSweep = await api('POST', '/sweeps', {
        to: tonTreasury,
        from: tonHolders,
        password: PASSWORD,
      });
      expect(tonSweep.status, tonSweep.text).toBe(202);
      const tonEnd = await jobEnd(`/sweeps/${tonSweep.body.data.id}`);
      const tonRows = tonEnd['addresses'] as { address: string; status: string }[];
      expect(
        tonRows.filter((row) => row.status !== 'completed'),
        JSON.stringify(tonEnd),
      ).toEqual([]);
      await settled();
      for (const holder of tonHolders) expect(await nanotonsOf(holder)).toBe(0n);
      const gathered = await nanotonsOf(tonTreasury);
      expect(gathered).toBeGreaterThan(2n * TON - 20_000_000n);
      expect(await nanotonsOf(sponsor)).toBe(beforeTon);
    },
    TEST_TIMEOUT_MS,
  );
});
