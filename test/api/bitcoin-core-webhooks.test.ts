// Bitcoin through each backend with the watcher and deliverer running: the gateway on the devnet's
// Esplora REST, and on its Bitcoin Core JSON-RPC (BITCOIN_MAINNET_BACKEND=core). On both, a payment to a
// watched address is notified `pending` from the mempool when the subscription asks, then `transfer`
// once mined, with the payer and the exact satoshis; and a send by the gateway lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { ApiResponse, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { type SharedBitcoinDevnet, sharedBitcoinDevnet } from '../helpers/shared-devnets.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PASSWORD = 'correct horse battery';

let devnet: SharedBitcoinDevnet;
let receiver: WebhookReceiver;

beforeAll(async () => {
  devnet = await sharedBitcoinDevnet();
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  await receiver?.close();
});

for (const backend of ['esplora', 'core'] as const) {
  describe(`bitcoin on ${backend}`, () => {
    let gw: TestGateway;
    let roles: BackgroundRoles;
    let token: string;

    beforeAll(async () => {
      ({ gw, roles, token } = await startWatchingGateway({
        BITCOIN_MAINNET_URLS: backend === 'core' ? devnet.coreUrl : devnet.url,
        BITCOIN_MAINNET_BACKEND: backend,
      }));
    }, 60_000);

    afterAll(async () => {
      await roles?.stop();
      await gw?.close();
    });

    const api = (method: string, path: string, json?: unknown): Promise<ApiResponse> =>
      gw.request(method, `/api/v2/bitcoin${path}`, {
        token,
        ...(method === 'POST' ? { json: json ?? {} } : {}),
      });

    async function deliveries(path: string, count: number) {
      const hits = await waitFor(() => {
        const found = receiver.received.filter((r) => r.path === path);
        return found.length >= count ? found : undefined;
      }, 20_000);
      return hits.map((hit) => JSON.parse(hit.body) as Record<string, unknown>);
    }

    it('notifies pending from the mempool, then the transfer once mined', async () => {
      const created = await api('POST', '/addresses', { password: PASSWORD });
      expect(created.status, created.text).toBe(201);
      const to: string = created.body.data[0].address;
      const path = `/${backend}/pending`;
      const subscribed = await api('POST', '/webhooks', {
        url: `${receiver.url}${path}`,
        to,
        notify_pending: true,
      });
      expect(subscribed.status, subscribed.text).toBe(201);
      const txid = await devnet.faucet(to, 12_345_678n);
      const [pending] = await deliveries(path, 1);
      expect(pending).toMatchObject({ event: 'pending', txid, to, type: 'BTC', amount_raw: '12345678' });
      expect(pending!['blocknumber']).toBeNull();
      await devnet.mine(1);
      const [, mined] = await deliveries(path, 2);
      expect(mined).toMatchObject({ event: 'transfer', txid, to, type: 'BTC', amount_raw: '12345678' });
      expect(mined!['from']).toMatch(/^bc1q/);

      const balance = await api('GET', `/balances/${to}`);
      expect(balance.body.data).toMatchObject({ balance: '0.12345678', unconfirmed: '0.00000000' });
      const away = (await api('POST', '/addresses')).body.data[0].address;
      const sent = await api('POST', '/transactions', {
        from: to,
        to: away,
        amount: '0.1',
        password: PASSWORD,
      });
      expect(sent.status, sent.text).toBe(201);
      await devnet.mine(1);
      expect((await api('GET', `/balances/${away}`)).body.data.balance_sats).toBe('10000000');
      const block = await api('GET', `/blocks/${(await api('GET', '/blocks/number')).body.data.blocknumber}`);
      expect(block.body.data.txids).toContain(sent.body.data.txid);
    });
  });
}
