// The reads the dashboard draws from: the history newest first on request, requests per day against the
// quota, and the delivery health of webhooks per hour. Rows are written in the store as the gateway writes
// them (a send's history row, notifications and their attempts), then read through the HTTP API, on SQLite
// and on Postgres (the latency is date arithmetic, written per dialect).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { webhookRow } from '../webhooks/fixtures.ts';

const PLANS = [
  { name: 'small', period: 'month', quotas: { webhooks: 5, addresses: 5, requests: 1000, transactions: 5 } },
];

let gw: TestGateway;
let token: string;
let userId: string;

beforeAll(async () => {
  gw = await startGateway({ env: { PLANS: JSON.stringify(PLANS), DEFAULT_PLAN: 'small' } });
  ({ token, userId } = await gw.userToken());
});
afterAll(() => gw?.close());

/** A listed row's amount without its decimals (the API writes every decimal of the coin). */
const whole = (row: { amount: string }) => row.amount.split('.')[0];

describe('the transaction history', () => {
  it('lists oldest first by default and newest first with order=desc, its page links keeping the order', async () => {
    for (let i = 1; i <= 53; i++) {
      await gw.ctx.transactions.record({
        userId,
        chain: 'ethereum',
        network: 'mainnet',
        type: 'default',
        txid: `0x${i.toString(16).padStart(64, '0')}`,
        from: null,
        to: null,
        amount: `${i}`,
        response: { n: i },
        httpStatus: 201,
      });
    }
    const asc = await gw.request('GET', '/api/v2/ethereum/transactions', { token });
    expect(asc.status).toBe(200);
    expect(whole(asc.body.data[0])).toBe('1');
    const desc = await gw.request('GET', '/api/v2/ethereum/transactions?order=desc', { token });
    expect(desc.body.data.map(whole).slice(0, 3)).toEqual(['53', '52', '51']);
    expect(desc.body.next_page_url).toBe('/api/v2/ethereum/transactions?order=desc&page=2');
    const second = await gw.request('GET', desc.body.next_page_url, { token });
    expect(second.body.data.map(whole)).toEqual(['3', '2', '1']);
    const wrong = await gw.request('GET', '/api/v2/ethereum/transactions?order=newest', { token });
    expect(wrong.status).toBe(422);
  });
});

describe('requests per day', () => {
  it('counts each request on its UTC day, against the quota', async () => {
    const { token: own, userId: ownId } = await gw.userToken();
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await gw.ctx.store.db
      .insertInto('request_days')
      .values({ user_id: ownId, day: yesterday, requests: 7 })
      .execute();
    for (let i = 0; i < 3; i++) await gw.request('GET', '/api/account', { token: own });
    // The meter writes in batches: the read adds what this process has not written yet.
    const usage = await gw.request('GET', '/api/account/usage?days=3', { token: own });
    expect(usage.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.body.data).toMatchObject({ quota: 1000, period: 'month' });
    const days = usage.body.data.days as { day: string; requests: number }[];
    expect(days.map((d) => d.day)).toHaveLength(3);
    expect(days.at(-1)).toEqual({ day: today, requests: 4 });
    expect(days.at(-2)).toEqual({ day: yesterday, requests: 7 });
    expect(days[0]!.requests).toBe(0);
    // Once written, the stored count is the same.
    await gw.ctx.quotas.requests.flush();
    const row = await gw.ctx.store.db
      .selectFrom('request_days')
      .select('requests')
      .where('user_id', '=', ownId)
      .where('day', '=', today)
      .executeTakeFirst();
    expect(Number(row?.requests)).toBeGreaterThanOrEqual(4);
    expect((await gw.request('GET', '/api/account/usage?days=0', { token: own })).status).toBe(422);
  });
});

describe('delivery health', () => {
  it('counts attempts per hour by outcome and retries, and the latency from block to delivery', async () => {
    const { token: own, userId: ownId } = await gw.userToken();
    const db = gw.ctx.store.db;
    const at = new Date();
    const webhookId = randomUUID();
    await db
      .insertInto('webhooks')
      .values(
        webhookRow({
          id: webhookId,
          user_id: ownId,
          chain: 'ethereum',
          url: 'http://127.0.0.1:9/hooks',
          to_address: null,
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
        }),
      )
      .execute();
    const ago = (ms: number) => new Date(at.getTime() - ms).toISOString();
    /** A transfer of `blockMsAgo` delivered (or not) after the given attempts, each `[msAgo, status]`. */
    const notification = async (blockMsAgo: number, attempts: [number, number | null][]) => {
      const id = randomUUID();
      const success = attempts.find(([, status]) => status !== null && status < 300);
      await db
        .insertInto('notifications')
        .values({
          id,
          webhook_id: webhookId,
          user_id: ownId,
          chain: 'ethereum',
          network: 'mainnet',
          event: 'transfer',
          txid: `0x${randomUUID().replaceAll('-', '')}`,
          log_index: 0,
          block_number: 1,
          block_hash: '0x01',
          payload: '{}',
          status: success ? 'delivered' : 'failed',
          attempts: attempts.length,
          next_attempt_at: at.toISOString(),
          block_time: ago(blockMsAgo),
          created_at: ago(blockMsAgo),
          updated_at: at.toISOString(),
          delivered_at: success ? ago(success[0]) : null,
        })
        .execute();
      for (const [msAgo, status] of attempts) {
        await db
          .insertInto('notification_attempts')
          .values({
            id: randomUUID(),
            notification_id: id,
            attempted_at: ago(msAgo),
            duration_ms: 5,
            response_status: status,
            response_body: null,
            error: status === null ? 'connect ECONNREFUSED 127.0.0.1:9' : null,
          })
          .execute();
      }
    };
    // This hour: one delivered at once (2 s after its block), one refused then retried to delivery (6 s).
    const sameHour = Math.min(60_000, at.getTime() % 3_600_000);
    const delivered = Math.floor(sameHour / 2);
    await notification(delivered + 2_000, [[delivered, 200]]);
    await notification(delivered + 6_000, [
      [sameHour, null],
      [delivered, 204],
    ]);
    // Three hours ago: a 500 left failed.
    await notification(3 * 3_600_000 + 1_000, [[3 * 3_600_000, 500]]);
    // Two days ago: outside the window.
    await notification(48 * 3_600_000, [[48 * 3_600_000, 500]]);

    const stats = await gw.request('GET', '/api/webhooks/stats?hours=24&chain=ethereum', { token: own });
    expect(stats.status).toBe(200);
    const buckets = stats.body.data.buckets as {
      hour: string;
      delivered: number;
      failed: number;
      retried: number;
      latency_ms: { average: number | null; max: number | null };
    }[];
    expect(buckets).toHaveLength(24);
    const current = buckets.at(-1)!;
    expect(current.hour).toBe(`${at.toISOString().slice(0, 13)}:00:00.000Z`);
    expect(current).toMatchObject({ delivered: 2, failed: 1, retried: 1 });
    expect(current.latency_ms).toEqual({ average: 4_000, max: 6_000 });
    expect(buckets.at(-4)).toMatchObject({
      delivered: 0,
      failed: 1,
      retried: 0,
      latency_ms: { average: null },
    });
    expect(buckets.reduce((sum, b) => sum + b.failed, 0)).toBe(2);
    // Another chain's, or testnet's, are not these.
    const tron = await gw.request('GET', '/api/webhooks/stats?chain=tron', { token: own });
    expect(
      tron.body.data.buckets.every(
        (b: { delivered: number; failed: number }) => b.delivered + b.failed === 0,
      ),
    ).toBe(true);
    const testnet = await gw.request('GET', '/api/webhooks/stats', {
      token: own,
      headers: { 'X-Network': 'testnet' },
    });
    expect(testnet.status).toBe(200);
    expect(testnet.body.data.network).toBe('testnet');
    expect(testnet.body.data.buckets.every((b: { failed: number }) => b.failed === 0)).toBe(true);
    // Everyone else's stay theirs.
    const other = await gw.request('GET', '/api/webhooks/stats', { token });
    expect(other.body.data.buckets.every((b: { failed: number }) => b.failed === 0)).toBe(true);
    expect((await gw.request('GET', '/api/webhooks/stats?hours=169', { token: own })).status).toBe(422);
    expect((await gw.request('GET', '/api/webhooks/stats?chain=dogecoin', { token: own })).status).toBe(404);
  });
});
