// The TON family through the gateway's HTTP API, on the TON devnet: custody, balances, blocks and
// transaction reads, webhooks (a comment filter, a bounced payment).
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../../src/roles.ts';
import { newWallet, sendBoc, transferBoc } from '../../devnets/ton/helpers.ts';
import { startGateway, type TestGateway } from '../../helpers/gateway.ts';
import { waitFor } from '../../helpers/processes.ts';
import { withUnnamedNodesDead } from '../../helpers/unserved-nodes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

/** Webhooks take a comment filter once the shared webhook input has one. */
const PASSWORD = 'correct horse battery staple 7';

let devnet: TonDevnet;
let gateway: TestGateway;
let token: string;
let roles: BackgroundRoles;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  devnet = await startTonDevnet({ blockIntervalMs: null, globalId: -3 });
  gateway = await startGateway({
    env: withUnnamedNodesDead({ TON_TESTNET_URLS: devnet.url, WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' }),
  });
  roles = startBackgroundRoles(gateway.ctx, { pollMs: 50 });
  token = (await gateway.userToken()).token;
});

afterAll(async () => {
  await roles?.stop();
  await gateway?.close();
  await devnet?.close();
  await receiver?.close();
});

async function deliveries(path: string, count: number) {
  const hits = await waitFor(() => {
    const found = receiver.received.filter((r) => r.path === path);
    return found.length >= count ? found : undefined;
  }, 20_000);
  return hits.map((hit) => JSON.parse(hit.body) as Record<string, unknown>);
}

const api = (method: string, url: string, json?: unknown) =>
  gateway.request(method, `/api/v2/ton${url}`, {
    token,
    headers: { 'x-network': 'testnet' },
    ...(json === undefined ? {} : { json }),
  });

describe('TON through the API (testnet devnet)', () => {
  it('creates an address in the testnet wallet form, reads its balance once funded, and exports its seed', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    expect(created.status, created.text).toBe(201);
    const address = created.body.data[0].address as string;
    expect(address).toMatch(/^0Q/);
    await devnet.fund(address, 2_500_000_000n);
    const balance = await api('GET', `/balances/${address}`);
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body.data).toMatchObject({ balance: '2.500000000', nanotons: '2500000000' });
    const exported = await api('POST', `/addresses/export/${address}`, { password: PASSWORD });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data.privateKey).toMatch(/^[0-9a-f]{64}$/);
    // The mainnet form of the same account is refused on testnet, naming the field.
    const mainnetForm = Address.parse(address).toString({ bounceable: false });
    const refused = await api('GET', `/balances/${mainnetForm}`);
    expect(refused.status).toBe(422);
  });

  it('answers the head, a block and a transaction by hash', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    await devnet.fund(address, 1_000_000_000n);
    const head = await api('GET', '/blocks/number');
    expect(head.status, head.text).toBe(200);
    const seqno = head.body.data.blocknumber as number;
    const block = await api('GET', `/blocks/${seqno}`);
    expect(block.status, block.text).toBe(200);
    expect(block.body.data.block.seqno).toBe(seqno);
    const account = await fetch(`${devnet.url}/api/v3/account?address=${address}`);
    const hash = Buffer.from(
      ((await account.json()) as { last_transaction_hash: string }).last_transaction_hash,
      'base64',
    );
    const decoded = await api('GET', `/transactions/${hash.toString('hex')}/decoded`);
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body.data.transfers).toMatchObject([
      { type: 'TON', direction: 'in', amount_raw: '1000000000' },
    ]);
    const missing = await api('GET', `/transactions/${'ab'.repeat(32)}/receipt`);
    expect(missing.status).toBe(422);
  });

  it('notifies TON and USDT payments to a watched address', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    const usdt = Address.parse(devnet.tokens.jetton.USDT);
    const subscribe = async (path: string, body: Record<string, unknown>) => {
      const res = await api('POST', '/webhooks', { url: `${receiver.url}${path}`, ...body });
      expect(res.status, res.text).toBe(201);
    };
    await subscribe('/ton', { to: address, type: 'TON' });
    await subscribe('/usdt', {
      to: address,
      type: 'JETTON',
      contractaddress: usdt.toString({ testOnly: true }),
    });
    // Let the watcher take its cursor before the payments.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await devnet.fund(address, 1_500_000_000n);
    await devnet.mintJetton(devnet.tokens.jetton.USDT, address, 7_000_000n);
    const [ton] = await deliveries('/ton', 1);
    expect(ton).toMatchObject({
      event: 'transfer',
      blockchain: 'ton',
      network: 'testnet',
      type: 'TON',
      contractaddress: null,
      amount: 1.5,
      amount_raw: '1500000000',
    });
    const [jetton] = await deliveries('/usdt', 1);
    expect(jetton).toMatchObject({
      type: 'JETTON',
      amount_raw: '7000000',
      decimals: 6,
    });
    // Shown as wallets show them on testnet.
    expect(ton?.['to']).toBe(address);
    expect(jetton?.['to']).toBe(address);
    expect(jetton?.['contractaddress']).toBe(usdt.toString({ bounceable: false, testOnly: true }));
  });

  it("describes the demo USDT and an address's balance of it; a master that is none answers 400", async () => {
    const usdt = devnet.tokens.jetton.USDT;
    const jetton = await api('GET', `/jetton/${usdt}`);
    expect(jetton.status, jetton.text).toBe(200);
    expect(jetton.body.data).toMatchObject({ jetton: usdt, name: 'Tether USD', symbol: 'USDT', decimals: 6 });
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    const empty = await api('GET', `/balances/${address}/jetton/${usdt}`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.data).toMatchObject({ address, balance: '0.000000', balance_raw: '0', decimals: 6 });
    await devnet.mintJetton(usdt, address, 3_250_000n);
    const held = await api('GET', `/balances/${address}/jetton/${usdt}`);
    expect(held.body.data).toMatchObject({ balance: '3.250000', balance_raw: '3250000' });
    const none = await api('GET', `/jetton/${address}`);
    expect(none.status, none.text).toBe(400);
  });

  it('notifies the one payment whose comment a webhook filters on', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    const subscribed = await api('POST', '/webhooks', {
      url: `${receiver.url}/memo`,
      to: address,
      comment: 'order 17',
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sender = newWallet(-3);
    await devnet.fund(sender.address.toString({ testOnly: true }), 3_000_000_000n);
    const to = Address.parse(address);
    for (const [seqno, comment] of ['order 16', 'order 17'].entries()) {
      await sendBoc(devnet.url, transferBoc(sender, { to, value: 100_000_000n, seqno, comment }));
      await devnet.advance();
    }
    const [hit] = await deliveries('/memo', 1);
    expect(hit).toMatchObject({ type: 'TON', amount_raw: '100000000', comment: 'order 17' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path === '/memo')).toHaveLength(1);
  });

  it('notifies a payment the receiver bounced back as failed, never as a transfer', async () => {
    const created = await api('POST', '/addresses', { password: PASSWORD });
    const address = created.body.data[0].address as string;
    const subscribed = await api('POST', '/webhooks', { url: `${receiver.url}/bounced`, to: address });
    expect(subscribed.status, subscribed.text).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sender = newWallet(-3);
    await devnet.fund(sender.address.toString({ testOnly: true }), 3_000_000_000n);
    // A bounceable message to an address with no contract yet comes back.
    const to = Address.parse(address);
    await sendBoc(devnet.url, transferBoc(sender, { to, value: 400_000_000n, seqno: 0, bounce: true }));
    await devnet.advance();
    const [hit] = await deliveries('/bounced', 1);
    expect(hit).toMatchObject({ event: 'failed', type: 'TON', amount_raw: '400000000', to: address });
    expect(hit?.['error']).toMatch(/^bounced/);
  });
});
