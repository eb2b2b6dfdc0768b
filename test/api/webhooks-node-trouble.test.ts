import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { utils } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';

/**
 * The watcher reads the Tron devnet through a proxy that fails every other request, in turn with a 500,
 * a 200 whose body is not JSON, and a 429. Every transfer must still
 * be notified, once.
 */
let devnet: TronDevnet;
let proxy: http.Server;
let receiver: http.Server;
let gw: TestGateway;
let roles: BackgroundRoles;
const seen: { id: string; txid: string }[] = [];
let requests = 0;
let to: string;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
  proxy = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const turn = requests++ % 6;
      if (turn === 1) return void response.writeHead(500).end('upstream exploded');
      if (turn === 3)
        return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"blockID": tru');
      if (turn === 5) return void response.writeHead(429, { 'retry-after': '0' }).end('slow down');
      const upstream = await fetch(`${devnet.url}${request.url}`, {
        method: request.method ?? 'POST',
        body: body || undefined,
      });
      response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
    });
  });
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const payload = JSON.parse(body) as { id: string; txid: string };
      seen.push({ id: payload.id, txid: payload.txid });
      response.writeHead(200).end();
    });
  });
  const proxyUrl = await listen(proxy);
  const receiverUrl = await listen(receiver);
  gw = await startGateway({
    env: withUnnamedNodesDead({
      TRON_MAINNET_URLS: proxyUrl,
      // Only mainnet goes through the proxy, so the watcher's own requests meet the failures in turn.
      TRON_TESTNET_URLS: devnet.url,
      NODE_RETRIES: '4',
      NODE_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      LOG_LEVEL: 'error',
    }),
  });
  const { token } = await gw.userToken(undefined, 'enterprise');
  to = utils.accounts.generateAccount().address.base58 as string;
  const created = await gw.request('POST', '/api/v2/tron/webhooks', {
    token,
    json: { url: `${receiverUrl}/hook`, to },
  });
  expect(created.status).toBe(201);
  roles = startBackgroundRoles(gw.ctx, { pollMs: 50 });
}, 120_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await devnet?.close();
  proxy?.close();
  receiver?.close();
});

describe('node trouble', () => {
  it('slows the watcher but never makes it skip a block or a transfer', async () => {
    // A subscription counts from the block the watcher first stands on: wait for it, however slow the
    // machine, before the transfers.
    await waitFor(
      () =>
        gw.ctx.store.db
          .selectFrom('chain_cursors')
          .select('block_number')
          .where('chain', '=', 'tron')
          .where('network', '=', 'mainnet')
          .executeTakeFirst(),
      60_000,
    );
    const expected: string[] = [];
    for (let i = 0; i < 6; i++) {
      expected.push(await devnet.faucetTrx(to, 1_000_000n + BigInt(i)));
      await devnet.mine(1);
    }
    await waitFor(
      () => (new Set(seen.map((s) => s.txid)).size >= expected.length ? true : undefined),
      120_000,
    );
    expect([...new Set(seen.map((s) => s.txid))].sort()).toEqual([...expected].sort());
    expect(new Set(seen.map((s) => s.id)).size).toBe(expected.length);
    expect(requests).toBeGreaterThan(20);
  }, 180_000);
});
