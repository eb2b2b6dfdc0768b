import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { utils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { RequestOptions, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';

/** A webhook receiver: records every request; answers with the status `reply` says at that moment. */
interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}
const received: Received[] = [];
let reply = 200;
let receiver: http.Server;
let receiverUrl: string;

let gw: TestGateway;
let devnet: TronDevnet;
let roles: BackgroundRoles;
let token: string;
let USDT: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2${path}`, { token, ...options });
const newAddress = () => utils.accounts.generateAccount().address.base58 as string;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body, path: request.url ?? '' });
      response.writeHead(reply).end('ok from receiver');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
  USDT = devnet.tokens.trc20.USDT;
  ({ gw, roles, token } = await startWatchingGateway({
    TRON_MAINNET_URLS: devnet.url,
    TRON_TESTNET_URLS: devnet.url,
  }));
}, 120_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await devnet?.close();
  receiver?.close();
});

/** Waits until the receiver has `count` requests for `path`. */
async function deliveries(path: string, count: number, timeoutMs = 15_000) {
  return waitFor(() => {
    const hits = received.filter((r) => r.path === path);
    return hits.length >= count ? hits : undefined;
  }, timeoutMs);
}

async function subscribe(path: string, body: Record<string, unknown>) {
  const res = await api('POST', '/tron/webhooks', { json: { url: `${receiverUrl}${path}`, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { webhook: string; secret: string };
}

describe('tron webhooks end to end', () => {
  it('notifies a matching TRC20 transfer, signed; a non-matching one sends nothing', async () => {
    const to = newAddress();
    const other = newAddress();
    const { webhook, secret } = await subscribe('/usdt', { to, contractaddress: USDT, type: 'TRC20' });
    await devnet.mine(1);
    await new Promise((r) => setTimeout(r, 300));
    await devnet.faucetTrc20(USDT, other, 1_000_000n);
    await devnet.faucetTrc20(USDT, to, 108_935n);
    const [hit] = await deliveries('/usdt', 1);
    const payload = JSON.parse(hit!.body);
    expect(payload).toMatchObject({
      webhook_id: webhook,
      to,
      type: 'TRC20',
      contractaddress: USDT,
      amount: 0.108935,
      amount_raw: '108935',
      decimals: 6,
      blockchain: 'tron',
      network: 'mainnet',
      event: 'transfer',
      tokenid: null,
    });
    expect(payload.blocknumber).toMatch(/^\d+$/);
    expect(payload.datetime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(payload.txid).toMatch(/^[0-9a-f]{64}$/);
    // Standard Webhooks signature, verified by the reference library; and Chaingateway's X-Signature.
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    expect(hit!.headers['webhook-id']).toBe(payload.id);
    expect(hit!.headers['x-signature']).toBe(
      createHmac('sha256', secret).update(payload.txid).digest('base64'),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.path === '/usdt')).toHaveLength(1);
  });

  it('writes the amount exactly in the signed body and in the notification list', async () => {
    const to = newAddress();
    const { secret } = await subscribe('/exact', { to, contractaddress: USDT });
    await devnet.mine(1);
    await new Promise((r) => setTimeout(r, 300));
    // 123456789012.345678 USDT: 18 significant digits, one more than a double keeps.
    await devnet.faucetTrc20(USDT, to, 123_456_789_012_345_678n);
    const [hit] = await deliveries('/exact', 1);
    expect(hit!.body).toContain('"amount":123456789012.345678,');
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    const id = JSON.parse(hit!.body).id as string;
    const list = await api('GET', '/tron/webhooks/notifications');
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.find((n: { id: string }) => n.id === id)).toMatchObject({
      amount_raw: '123456789012345678',
    });
    expect(list.text).toContain('"amount":123456789012.345678,"amount_raw":"123456789012345678"');
  });

  it('lists notifications; a failed one waits for a manual retry with the same id', async () => {
    const to = newAddress();
    await subscribe('/flaky', { to });
    reply = 500;
    await devnet.faucetTrx(to, 2_000_000n);
    const [first] = await deliveries('/flaky', 1);
    const id = JSON.parse(first!.body).id as string;
    const failed = await waitFor(async () => {
      const res = await api('GET', '/tron/webhooks/notifications/failed');
      return res.body.data.find((n: { id: string }) => n.id === id);
    }, 10_000);
    expect(failed).toMatchObject({
      status: 'failed',
      success: false,
      attempts: 1,
      response_status: 500,
      type: 'TRX',
      amount: 2,
    });
    await new Promise((r) => setTimeout(r, 700));
    expect(received.filter((r) => r.path === '/flaky')).toHaveLength(1);

    reply = 200;
    const retry = await api('POST', `/tron/webhooks/notifications/${id}/retry`);
    expect(retry.status, retry.text).toBe(200);
    const hits = await deliveries('/flaky', 2);
    expect(JSON.parse(hits[1]!.body).id).toBe(id);
    await waitFor(async () => {
      const res = await api('GET', '/tron/webhooks/notifications/failed');
      return res.body.data.some((n: { id: string }) => n.id === id) ? undefined : true;
    }, 10_000);
    const all = await api('GET', '/tron/webhooks/notifications');
    expect(all.body.data.find((n: { id: string }) => n.id === id)).toMatchObject({
      status: 'delivered',
      attempts: 2,
    });
    expect((await api('POST', `/tron/webhooks/notifications/${id}/retry`)).status).toBe(422);
  });

  it('waits for the confirmations a subscription asks for', async () => {
    const to = newAddress();
    await subscribe('/deep', { to, confirmations: 3 });
    await devnet.faucetTrx(to, 1_000_000n);
    await new Promise((r) => setTimeout(r, 600));
    expect(received.filter((r) => r.path === '/deep')).toHaveLength(0);
    await devnet.mine(2);
    await deliveries('/deep', 1);
  });

  it('manages subscriptions: list, get, put, delete, and refuses bad ones', async () => {
    const to = newAddress();
    const { webhook } = await subscribe('/crud', { to });
    expect((await api('GET', '/tron/webhooks')).body.data.some((w: { id: string }) => w.id === webhook)).toBe(
      true,
    );
    expect((await api('GET', `/tron/webhooks/${webhook}`)).body.data).toMatchObject({
      id: webhook,
      to,
      is_active: true,
    });
    const put = await api('PUT', `/tron/webhooks/${webhook}`, {
      json: { url: `${receiverUrl}/crud2`, from: to, type: 'TRX' },
    });
    expect(put.body.data).toMatchObject({ from: to, to: null, type: 'TRX', comment: null });
    expect((await api('DELETE', `/tron/webhooks/${webhook}`)).status).toBe(200);
    expect((await api('GET', `/tron/webhooks/${webhook}`)).status).toBe(404);
    const bad = [
      { url: `${receiverUrl}/x` },
      { url: `${receiverUrl}/x`, to: '0x0000000000000000000000000000000000000000' },
      { url: `${receiverUrl}/x`, to, type: 'ERC20' },
      { url: 'ftp://example.com/', to },
      { url: 'http://10.0.0.1/hook', to },
      { url: 'http://169.254.169.254/latest', to },
      { url: 'http://[::ffff:10.0.0.1]/', to },
      // Tron has no mempool to report pending transfers from.
      { url: `${receiverUrl}/x`, to, notify_pending: true },
      // Nor comments on its transfers (TON has).
      { url: `${receiverUrl}/x`, to, comment: 'order 42' },
      { url: `${receiverUrl}/x`, comment: 'order 42' },
    ];
    for (const body of bad) {
      const res = await api('POST', '/tron/webhooks', { json: body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const commented = await api('POST', '/tron/webhooks', {
      json: { url: `${receiverUrl}/x`, to, comment: 'x' },
    });
    expect(commented.body.errors).toContainEqual({
      field: 'comment',
      message: 'tron transfers carry no comment to filter on.',
    });
    // The spec's chain-less form: Tron unless blockchain says otherwise.
    const legacy = await api('POST', '/webhooks', { json: { url: `${receiverUrl}/legacy`, to } });
    expect(legacy.status).toBe(201);
    expect((await api('GET', `/tron/webhooks/${legacy.body.data.webhook}`)).status).toBe(200);
    expect(
      (await api('POST', '/webhooks', { json: { url: `${receiverUrl}/x`, to, blockchain: 'dogecoin' } }))
        .status,
    ).toBe(404);
  });
  it('keeps recording the notifications of a lapsed plan and delivers them once it is renewed', async () => {
    const { token: lapsedToken, userId } = await gw.userToken(undefined, 'enterprise');
    const to = newAddress();
    const res = await gw.request('POST', '/api/v2/tron/webhooks', {
      token: lapsedToken,
      json: { url: `${receiverUrl}/lapsed`, to },
    });
    expect(res.status, res.text).toBe(201);
    await devnet.mine(1);
    await new Promise((r) => setTimeout(r, 300));
    await gw.ctx.users.setPlan(userId, { plan: 'enterprise', status: 'cancelled' });

    const refused = await gw.request('GET', '/api/v2/tron/webhooks', { token: lapsedToken });
    expect(refused.status).toBe(402);
    expect(refused.body.message).toMatch(/enterprise plan was cancelled on \d{4}-\d\d-\d\d/);
    const account = await gw.request('GET', '/api/account', { token: lapsedToken });
    expect(account.body.data).toMatchObject({ status: 'cancelled', is_subscribed: 'false' });

    await devnet.faucetTrc20(USDT, to, 5_000_000n);
    const recorded = await waitFor(async () => {
      const rows = await gw.ctx.store.db
        .selectFrom('notifications')
        .select(['id', 'status'])
        .where('user_id', '=', userId)
        .execute();
      return rows.length > 0 ? rows : undefined;
    }, 15_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.path === '/lapsed')).toHaveLength(0);
    expect(recorded[0]!.status).toBe('pending');

    await gw.ctx.users.setPlan(userId, { plan: 'enterprise', status: 'active' });
    const [hit] = await deliveries('/lapsed', 1);
    expect(JSON.parse(hit!.body)).toMatchObject({ id: recorded[0]!.id, to, amount_raw: '5000000' });
    expect((await gw.request('GET', '/api/v2/tron/webhooks', { token: lapsedToken })).status).toBe(200);
  });
});
