// Webhooks woken rather than polled: with the watchers' and the deliverer's polls slowed to a minute, a
// transfer still reaches the receiver within seconds, which only the wake-ups can do: the node's new-block
// subscription (anvil's newHeads, the Solana devnet's slotSubscribe) wakes the watcher, and its commit wakes
// the deliverer (in process; on Postgres across instances by LISTEN/NOTIFY). The subscription is made again
// after its node restarts, and without one (none set, or a dead URL) the watcher polls as before.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Keypair } from '@solana/web3.js';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import type { ChainName } from '../../src/chains/types.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import {
  freshDatabase,
  type RequestOptions,
  startGateway,
  type TestGateway,
  testDatabase,
} from '../helpers/gateway.ts';
import { freePort, waitFor } from '../helpers/processes.ts';
import {
  type SharedEvmDevnet,
  type SharedSolanaDevnet,
  sharedEvmDevnet,
  sharedSolanaDevnet,
} from '../helpers/shared-devnets.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.ts';

/** Far beyond any wait below: a delivery that arrives came from a wake-up, not a poll. */
const SLOW_POLL_MS = 60_000;
/** How long a woken delivery may take here, on a busy machine. */
const WOKEN_WITHIN_MS = 15_000;

const newEvmAddress = () => getAddress(`0x${randomBytes(20).toString('hex')}`);

let receiver: WebhookReceiver;
/** `/flaky` fails its first request (a 500), then answers 200. */
const flakyStatus = (hit: ReceivedRequest, received: readonly ReceivedRequest[]) =>
  hit.path === '/flaky' && received.filter((r) => r.path === '/flaky').length === 1 ? 500 : 200;

const hits = (where: string) => receiver.received.filter((r) => r.path === where);

function deliveries(where: string, count: number, timeoutMs = WOKEN_WITHIN_MS) {
  return waitFor(() => (hits(where).length >= count ? hits(where) : undefined), timeoutMs);
}

async function subscribe(
  gw: TestGateway,
  token: string,
  chain: ChainName,
  where: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await gw.request('POST', `/api/v2/${chain}/webhooks`, {
    token,
    json: { url: `${receiver.url}${where}`, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.webhook as string;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver({ status: flakyStatus });
});

afterAll(async () => {
  await receiver?.close();
});

describe('woken by the node and by commits, with polls slowed to a minute', () => {
  let ethereum: SharedEvmDevnet;
  let solana: SharedSolanaDevnet;
  /** Its own anvil, restarted by a test on the same port and chain. */
  let bsc: EvmDevnet;
  let bscPort: number;
  let bscStateDir: string;
  let gw: TestGateway;
  let roles: BackgroundRoles;
  let token: string;
  const api = (method: string, url: string, options: RequestOptions = {}) =>
    gw.request(method, `/api/v2${url}`, { token, ...options });

  beforeAll(async () => {
    [ethereum, solana] = await Promise.all([sharedEvmDevnet('ethereum'), sharedSolanaDevnet()]);
    bscPort = await freePort();
    bscStateDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-wake-bsc-'));
    bsc = await startEvmDevnet({ chain: 'bsc', port: bscPort, stateDir: bscStateDir });
    gw = await startGateway({
      env: withUnnamedNodesDead({
        ETHEREUM_MAINNET_URLS: ethereum.url,
        ETHEREUM_MAINNET_WS_URL: ethereum.wsUrl,
        BSC_MAINNET_URLS: bsc.url,
        BSC_MAINNET_WS_URL: bsc.wsUrl,
        SOLANA_MAINNET_URLS: solana.url,
        SOLANA_MAINNET_WS_URL: solana.wsUrl,
        WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
        LOG_LEVEL: 'warn',
      }),
    });
    roles = startBackgroundRoles(gw.ctx, { pollMs: SLOW_POLL_MS, deliveryPollMs: SLOW_POLL_MS });
    ({ token } = await gw.userToken(undefined, 'enterprise'));
  }, 120_000);

  afterAll(async () => {
    await roles?.stop();
    await gw?.close();
    await bsc?.close();
    if (bscStateDir !== undefined) rmSync(bscStateDir, { recursive: true, force: true });
  });

  it('an ETH transfer reaches the receiver: newHeads wakes the watcher, its commit the deliverer', async () => {
    const to = newEvmAddress();
    await subscribe(gw, token, 'ethereum', '/eth', { to, type: 'ETH' });
    const txid = await ethereum.faucetNative(to, 10n ** 15n);
    const [hit] = await deliveries('/eth', 1);
    expect(JSON.parse(hit!.body)).toMatchObject({ txid, to, event: 'transfer', blockchain: 'ethereum' });
  });

  it('a retry asked through the API is sent at once', async () => {
    const to = newEvmAddress();
    await subscribe(gw, token, 'ethereum', '/flaky', { to, type: 'ETH' });
    await ethereum.faucetNative(to, 2n * 10n ** 15n);
    const [first] = await deliveries('/flaky', 1);
    const id = JSON.parse(first!.body).id as string;
    // No automatic retry (the default): the failed notification waits for one asked through the API.
    await waitFor(async () => {
      const failed = await api('GET', '/ethereum/webhooks/notifications/failed');
      return failed.body.data?.some((n: { id: string }) => n.id === id) ? true : undefined;
    }, WOKEN_WITHIN_MS);
    const retried = await api('POST', `/ethereum/webhooks/notifications/${id}/retry`);
    expect(retried.status, retried.text).toBe(200);
    const [, second] = await deliveries('/flaky', 2);
    expect(JSON.parse(second!.body).id).toBe(id);
  });

  it('a SOL transfer reaches the receiver: slotSubscribe wakes the watcher', async () => {
    const to = Keypair.generate().publicKey.toBase58();
    await subscribe(gw, token, 'solana', '/sol', { to });
    const txid = await solana.airdrop(to, 1_000_000n);
    // Its block is confirmed once the next one comes.
    await solana.advance(1);
    const [hit] = await deliveries('/sol', 1);
    expect(JSON.parse(hit!.body)).toMatchObject({ txid, to, event: 'transfer', blockchain: 'solana' });
  });

  it('makes the subscription again after its node restarts', async () => {
    await bsc.close();
    bsc = await startEvmDevnet({ chain: 'bsc', port: bscPort, stateDir: bscStateDir });
    // The watcher saw its subscription drop.
    const dropped = (line: string) =>
      line.includes('node subscription down') && line.includes('"chain":"bsc"');
    await waitFor(() => (gw.logLines.some(dropped) ? true : undefined), WOKEN_WITHIN_MS);
    const to = newEvmAddress();
    await subscribe(gw, token, 'bsc', '/bsc', { to, type: 'BNB' });
    const txid = await bsc.faucetNative(to, 10n ** 15n);
    const [hit] = await deliveries('/bsc', 1, 30_000);
    expect(JSON.parse(hit!.body)).toMatchObject({ txid, to, blockchain: 'bsc' });
  });
});

describe('without a subscription the watcher polls', () => {
  let polygon: SharedEvmDevnet;
  let arbitrum: SharedEvmDevnet;
  let gw: TestGateway;
  let roles: BackgroundRoles;
  let token: string;

  beforeAll(async () => {
    [polygon, arbitrum] = await Promise.all([sharedEvmDevnet('polygon'), sharedEvmDevnet('arbitrum')]);
    ({ gw, roles, token } = await startWatchingGateway({
      POLYGON_MAINNET_URLS: polygon.url,
      // Nothing listens on port 1: the subscription never comes up.
      POLYGON_MAINNET_WS_URL: 'ws://127.0.0.1:1',
      ARBITRUM_MAINNET_URLS: arbitrum.url,
    }));
  }, 60_000);

  afterAll(async () => {
    await roles?.stop();
    await gw?.close();
  });

  it('delivers on a chain whose WebSocket URL is dead, and on one without any', async () => {
    const onPolygon = newEvmAddress();
    const onArbitrum = newEvmAddress();
    await subscribe(gw, token, 'polygon', '/polygon', { to: onPolygon });
    await subscribe(gw, token, 'arbitrum', '/arbitrum', { to: onArbitrum });
    const [polygonTx, arbitrumTx] = await Promise.all([
      polygon.faucetNative(onPolygon, 10n ** 15n),
      arbitrum.faucetNative(onArbitrum, 10n ** 15n),
    ]);
    const [polygonHit] = await deliveries('/polygon', 1);
    const [arbitrumHit] = await deliveries('/arbitrum', 1);
    expect(JSON.parse(polygonHit!.body)).toMatchObject({ txid: polygonTx, blockchain: 'polygon' });
    expect(JSON.parse(arbitrumHit!.body)).toMatchObject({ txid: arbitrumTx, blockchain: 'arbitrum' });
    expect(gw.logLines.some((line) => line.includes('node subscription down'))).toBe(true);
  });
});

describe.runIf(testDatabase() === 'postgres')('LISTEN/NOTIFY between instances', () => {
  let ethereum: SharedEvmDevnet;
  let watching: TestGateway;
  let delivering: TestGateway;
  const roles: BackgroundRoles[] = [];

  beforeAll(async () => {
    ethereum = await sharedEvmDevnet('ethereum');
    const database = freshDatabase('postgres');
    const env = withUnnamedNodesDead({
      ETHEREUM_MAINNET_URLS: ethereum.url,
      ETHEREUM_MAINNET_WS_URL: ethereum.wsUrl,
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      LOG_LEVEL: 'warn',
    });
    watching = await startGateway({ database, env: { ...env, ROLES: 'api,watcher' } });
    delivering = await startGateway({ database, env: { ...env, ROLES: 'api,deliverer' } });
    for (const gw of [watching, delivering]) {
      roles.push(startBackgroundRoles(gw.ctx, { pollMs: SLOW_POLL_MS, deliveryPollMs: SLOW_POLL_MS }));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(roles.map((r) => r.stop()));
    await delivering?.close();
    await watching?.close();
    await watching?.database.drop();
  });

  it("a watcher's commit in one instance wakes the deliverer of another", async () => {
    expect(roles.map((r) => [r.watchers.length > 0, r.deliverer !== null])).toEqual([
      [true, false],
      [false, true],
    ]);
    const { token } = await watching.userToken(undefined, 'enterprise');
    const to = newEvmAddress();
    await subscribe(watching, token, 'ethereum', '/across', { to, type: 'ETH' });
    const txid = await ethereum.faucetNative(to, 3n * 10n ** 15n);
    const [hit] = await deliveries('/across', 1);
    expect(JSON.parse(hit!.body)).toMatchObject({ txid, to });
  });
});
