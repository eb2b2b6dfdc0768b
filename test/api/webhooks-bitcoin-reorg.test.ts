// A Bitcoin reorg that puts a notified payment back in the mempool, then mines it again in another
// block: the subscriber hears `transfer`, `reverted`, `pending` again (it is unconfirmed once more) and a
// new `transfer` with the new block, each under its own id. This file reorganises its own devnet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../devnets/bitcoin/index.ts';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

let devnet: BitcoinDevnet;
let receiver: WebhookReceiver;
let gw: TestGateway;
let roles: BackgroundRoles;
let token: string;

beforeAll(async () => {
  devnet = await startBitcoinDevnet({ network: 'mainnet', blockIntervalMs: null });
  receiver = await startWebhookReceiver();
  ({ gw, roles, token } = await startWatchingGateway({ BITCOIN_MAINNET_URLS: devnet.url }));
}, 60_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await receiver?.close();
  await devnet?.close();
});

/** The bodies received on `path` once there are `count` of them, in arrival order. */
async function deliveries(path: string, count: number) {
  const hits = await waitFor(() => {
    const found = receiver.received.filter((r) => r.path === path);
    return found.length >= count ? found : undefined;
  }, 20_000);
  return hits.map((hit) => ({
    id: hit.headers['webhook-id'],
    body: JSON.parse(hit.body) as Record<string, unknown>,
  }));
}

describe('bitcoin webhooks across a reorg that keeps the transactions', () => {
  it('notifies a payment again, with a new id and block, when the new chain mines it again', async () => {
    const created = await gw.request('POST', '/api/v2/bitcoin/addresses', {
      token,
      json: { password: 'correct horse battery' },
    });
    expect(created.status, created.text).toBe(201);
    const to: string = created.body.data[0].address;
    const subscribed = await gw.request('POST', '/api/v2/bitcoin/webhooks', {
      token,
      json: { url: `${receiver.url}/reorg`, to, notify_reverted: true, notify_pending: true },
    });
    expect(subscribed.status, subscribed.text).toBe(201);

    const txid = await devnet.faucet(to, 2_500_000n);
    await deliveries('/reorg', 1);
    const [minedIn] = await devnet.mine(1);
    await deliveries('/reorg', 2);
    // The block holding it is replaced by empty ones; the payment waits in the mempool again.
    await devnet.reorg(1);
    await deliveries('/reorg', 4);
    const [minedAgainIn] = await devnet.mine(1);
    expect(minedAgainIn).not.toBe(minedIn);
    const all = await deliveries('/reorg', 5);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path === '/reorg')).toHaveLength(5);

    const blockOf = async (hash: string | undefined) => {
      const res = await fetch(`${devnet.url}/block/${hash}`);
      return String(((await res.json()) as { height: number }).height);
    };
    const first = await blockOf(minedIn);
    const second = await blockOf(minedAgainIn);
    expect(all.map(({ body }) => body['txid'])).toEqual(Array(5).fill(txid));
    const summary = all.map(({ body }) => `${body['event']}@${body['blocknumber']}`);
    expect(summary.slice(0, 2)).toEqual(['pending@null', `transfer@${first}`]);
    // Written together by the reorg: a receiver may get them in either order.
    expect(summary.slice(2, 4).sort()).toEqual(['pending@null', `reverted@${first}`].sort());
    expect(summary[4]).toBe(`transfer@${second}`);
    expect(all.every(({ id, body }) => id === body['id'])).toBe(true);
    expect(new Set(all.map(({ id }) => id)).size).toBe(5);
    const reverted = all.find(({ body }) => body['event'] === 'reverted')!;
    expect(reverted.body).toMatchObject({ to, amount_raw: '2500000', type: 'BTC' });
  });
});
