import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

const PLANS = [
  { name: 'tiny', period: 'day', quotas: { webhooks: 1, addresses: 2, requests: 5, transactions: 2 } },
  {
    name: 'open',
    period: 'month',
    quotas: { webhooks: null, addresses: null, requests: null, transactions: null },
  },
  { name: 'crowd', period: 'month', quotas: { webhooks: 0, addresses: 0, requests: 10, transactions: 0 } },
  {
    name: 'metered',
    period: 'month',
    quotas: { webhooks: null, addresses: null, requests: 1000, transactions: null },
  },
];

let gw: TestGateway;
let clock = new Date('2026-03-10T12:00:00Z');

beforeAll(async () => {
  gw = await startGateway({ env: { PLANS: JSON.stringify(PLANS), DEFAULT_PLAN: 'tiny' }, now: () => clock });
  // A held resource counted from its own table, as the address and webhook modules register theirs.
  await sql`create table quota_probe (user_id text not null)`.execute(gw.ctx.store.db);
  gw.ctx.quotas.registerCounter('addresses', async (db, userId) => {
    const { rows } = await sql<{
      n: string | number;
    }>`select count(*) as n from quota_probe where user_id = ${userId}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  });
});
afterAll(() => gw?.close());

async function account(token: string) {
  const res = await gw.request('GET', '/api/account', { token });
  return res;
}

describe('account info', () => {
  it('returns exactly the spec fields', async () => {
    const { token } = await gw.userToken();
    const { body } = await account(token);
    expect(Object.keys(body.data).sort()).toEqual(
      [
        'plan',
        'is_subscribed',
        'is_yearly',
        'ends_at',
        'quota_reset',
        'status',
        'payment_method',
        'crypto_payment',
        'quotas_left',
        // The gateway's one addition: the plan's allowance of sponsored fees (the paymaster).
        'sponsored_fees',
      ].sort(),
    );
    expect(Object.keys(body.data.crypto_payment).sort()).toEqual(
      ['currency', 'address', 'eur_amount', 'crypto_amount', 'qr_code'].sort(),
    );
    expect(body.data).toMatchObject({
      plan: 'TINY',
      is_subscribed: 'true',
      is_yearly: 0,
      status: 'active',
      quota_reset: '2026-03-11T00:00:00.000Z',
      // This request already used one of the five.
      quotas_left: { webhooks: 1, addresses: 2, requests: 4, transactions: 2 },
    });
  });

  it('reflects plan changes and unlimited quotas', async () => {
    const { token, userId } = await gw.userToken();
    await gw.ctx.users.setPlan(userId, { plan: 'open', yearly: true, endsAt: '2027-01-01' });
    const { body } = await account(token);
    expect(body.data).toMatchObject({
      plan: 'OPEN',
      is_yearly: 1,
      ends_at: '2027-01-01',
      quota_reset: '2026-04-01T00:00:00.000Z',
      quotas_left: { webhooks: null, addresses: null, requests: null, transactions: null },
    });
  });

  it('shows an ended subscription as not subscribed', async () => {
    const { token, userId } = await gw.userToken();
    await gw.ctx.users.setPlan(userId, { plan: 'tiny', endsAt: '2026-01-01' });
    const { body } = await account(token);
    expect(body.data).toMatchObject({ is_subscribed: 'false', status: 'expired' });
  });
});

describe('requests quota', () => {
  it('counts successful requests only and answers 429 with Retry-After when spent', async () => {
    const { token } = await gw.userToken();
    // Failures (422, 405, 404) do not count.
    await gw.request('GET', '/api/account', { token, headers: { 'x-network': 'bogus' } });
    await gw.request('DELETE', '/api/account', { token });
    for (let i = 0; i < 5; i++) expect((await account(token)).status).toBe(200);
    const spent = await account(token);
    expect(spent.status).toBe(429);
    expect(spent.body).toMatchObject({ ok: false, message: expect.stringMatching(/request limit/) });
    // Reset at the next UTC midnight: 12 hours from the clock.
    expect(spent.headers.get('retry-after')).toBe(String(12 * 3600));
    // Public routes stay reachable.
    expect((await gw.request('GET', '/healthz')).status).toBe(200);
  });

  it('resets when the period turns', async () => {
    const { token } = await gw.userToken();
    for (let i = 0; i < 5; i++) await account(token);
    expect((await account(token)).status).toBe(429);
    const saved = clock;
    clock = new Date('2026-03-11T00:00:01Z');
    try {
      const res = await account(token);
      expect(res.status).toBe(200);
      expect(res.body.data.quotas_left.requests).toBe(4);
    } finally {
      clock = saved;
    }
  });

  it('never lets concurrent requests overshoot the limit', async () => {
    const { token, userId } = await gw.userToken();
    await gw.ctx.users.setPlan(userId, { plan: 'crowd' });
    const results = await Promise.all(Array.from({ length: 30 }, () => account(token)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });
});

describe('the quotas left, as the account overview reads them', () => {
  it('come from memory, without a query, on a plan that limits nothing but requests', async () => {
    const { token, userId } = await gw.userToken();
    await gw.ctx.users.setPlan(userId, { plan: 'metered' });
    expect((await account(token)).body.data.quotas_left.requests).toBe(999);
    const plan = await gw.ctx.quotas.planOf(userId);
    // The meter holds the count since the request above: the answer is there at once.
    const left = gw.ctx.quotas.remaining(userId, plan);
    expect(left).not.toBeInstanceOf(Promise);
    expect(await left).toMatchObject({ quotas: { requests: 999, transactions: null, addresses: null } });
    // A plan that limits transactions reads them from the database.
    const tiny = (await gw.userToken()).userId;
    const read = gw.ctx.quotas.remaining(tiny, await gw.ctx.quotas.planOf(tiny));
    expect(read).toBeInstanceOf(Promise);
    expect(await read).toMatchObject({ quotas: { transactions: 2 } });
  });
});

describe('transactions and held resources', () => {
  it('charges a transaction only when the work succeeds', async () => {
    const { token, userId } = await gw.userToken();
    await expect(
      gw.ctx.quotas.withTransactionQuota(userId, async () => {
        throw new ApiError(422, 'balance is not sufficient');
      }),
    ).rejects.toThrow('balance is not sufficient');
    await gw.ctx.quotas.withTransactionQuota(userId, async () => 'txid-1');
    await gw.ctx.quotas.withTransactionQuota(userId, async () => 'txid-2');
    const third = gw.ctx.quotas.withTransactionQuota(userId, async () => 'txid-3');
    await expect(third).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/transaction limit/),
    });
    expect((await account(token)).body.data.quotas_left.transactions).toBe(0);
  });

  it('counts live rows of held resources and refuses one over the limit with 422', async () => {
    const { token, userId } = await gw.userToken();
    await gw.ctx.quotas.assertCapacity(userId, 'addresses');
    await sql`insert into quota_probe values (${userId}), (${userId})`.execute(gw.ctx.store.db);
    await expect(gw.ctx.quotas.assertCapacity(userId, 'addresses')).rejects.toMatchObject({
      status: 422,
      message: 'Your address limit exceeded. Please upgrade your plan',
    });
    expect((await account(token)).body.data.quotas_left.addresses).toBe(0);
    // Deleting frees quota.
    await sql`delete from quota_probe where user_id = ${userId}`.execute(gw.ctx.store.db);
    await gw.ctx.quotas.assertCapacity(userId, 'addresses');
  });
});

describe('a send past the transactions quota', () => {
  // Every request a node would get is counted: a refused send must cost the node nothing.
  let nodeCalls = 0;
  let node: http.Server;
  let nodeGw: TestGateway;

  beforeAll(async () => {
    node = http.createServer((req, res) => {
      nodeCalls++;
      req.resume();
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    const plans = [{ name: 'nosends', period: 'month', quotas: { ...PLANS[1]!.quotas, transactions: 0 } }];
    nodeGw = await startGateway({
      env: {
        PLANS: JSON.stringify(plans),
        TRON_MAINNET_URLS: url,
        ETHEREUM_MAINNET_URLS: url,
        NODE_RETRIES: '0',
      },
    });
  });
  afterAll(async () => {
    await nodeGw?.close();
    await new Promise((resolve) => node?.close(resolve));
  });

  it.each([
    ['tron', 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC'],
    ['ethereum', '0x52908400098527886E0F7030069857D2E4169EE7'],
  ])('is refused on %s before the node is asked to build it', async (chain, to) => {
    const { token } = await nodeGw.userToken();
    const created = await nodeGw.request('POST', `/api/v2/${chain}/addresses`, { token, json: {} });
    expect(created.status, created.text).toBe(201);
    const { address, privateKey } = created.body.data[0] ?? created.body.data;
    const before = nodeCalls;
    const sent = await nodeGw.request('POST', `/api/v2/${chain}/transactions`, {
      token,
      json: { from: address, to, amount: '1', privatekey: privateKey },
    });
    expect(sent.status, sent.text).toBe(422);
    expect(sent.body.message).toMatch(/transaction limit/);
    expect(nodeCalls - before).toBe(0);
  });
});
