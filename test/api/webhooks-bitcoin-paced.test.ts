// The gateway's own pace on Bitcoin, as production runs it (no fixed poll): the watcher is paced by the
// 600 s block time, and a devnet mining on demand, far sooner than that, is still followed block by block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../devnets/bitcoin/index.ts';
import { BITCOIN_BLOCK_TIME_MS } from '../../src/chains/bitcoin/finality.ts';
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
  ({ gw, roles, token } = await startWatchingGateway({ BITCOIN_MAINNET_URLS: devnet.url }, 'production'));
}, 60_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await receiver?.close();
  await devnet?.close();
});

describe('bitcoin watcher paced by the block time', () => {
  it('declares the 600 s block time and follows blocks mined on demand', async () => {
    expect(gw.ctx.registry.get('bitcoin', 'mainnet').follower?.blockTimeMs).toBe(BITCOIN_BLOCK_TIME_MS);
    const created = await gw.request('POST', '/api/v2/bitcoin/addresses', {
      token,
      json: { password: 'correct horse battery' },
    });
    expect(created.status, created.text).toBe(201);
    const to: string = created.body.data[0].address;
    const subscribed = await gw.request('POST', '/api/v2/bitcoin/webhooks', {
      token,
      json: { url: `${receiver.url}/paced`, to },
    });
    expect(subscribed.status, subscribed.text).toBe(201);

    const txids: string[] = [];
    for (const sats of [1_000_000n, 2_000_000n, 3_000_000n]) {
      txids.push(await devnet.faucet(to, sats));
      await devnet.mine(1);
      const notified = await waitFor(() => {
        const bodies = receiver.received.map((r) => JSON.parse(r.body) as { txid: string });
        return bodies.length >= txids.length ? bodies : undefined;
      }, 20_000);
      expect(notified.map((body) => body.txid)).toEqual(txids);
    }
  });
});
