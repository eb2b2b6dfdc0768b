import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { utils } from 'tronweb';
import { afterAll, describe, expect, it } from 'vitest';
import { startTronDevnet } from '../../devnets/tron/index.ts';
import { send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { startGatewayProcess, tokenOnDatabase } from '../helpers/gateway-process.ts';
import { exited, freePort, waitFor } from '../helpers/processes.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kill -9 during a run of transfers', () => {
  it('loses no notification and never sends one transfer under two ids', async () => {
    const devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
    const receiver = await startWebhookReceiver();
    const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { id: string; txid: string });
    const port = await freePort();
    const env = {
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      TRON_MAINNET_URLS: devnet.url,
      TRON_TESTNET_URLS: devnet.url,
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      MASTER_KEY: randomBytes(32).toString('base64'),
      // The chains this test does not run answer no node: one attempt each, so a stop is not held by retries.
      NODE_RETRIES: '1',
      LOG_LEVEL: 'warn',
      ...TEST_KDF_ENV,
    };
    // A token on the database the gateway processes will use.
    const token = await tokenOnDatabase(env, 'crash@example.com');

    const base = `http://127.0.0.1:${port}`;
    const start = () => startGatewayProcess(env, base, 30_000);
    const to = utils.accounts.generateAccount().address.base58 as string;
    const expected: string[] = [];
    const transfer = async (i: number) => {
      expected.push(await devnet.faucetTrx(to, 1_000_000n + BigInt(i)));
    };

    try {
      let gateway = await start();
      const created = await send(base, 'POST', '/api/v2/tron/webhooks', {
        token,
        json: { url: `${receiver.url}/hook`, to },
      });
      expect(created.status, created.text).toBe(201);
      await new Promise((r) => setTimeout(r, 1_500));

      for (let i = 0; i < 10; i++) {
        await transfer(i);
        await new Promise((r) => setTimeout(r, 120));
      }
      // Mid-run: the watcher and the deliverer are busy with these blocks.
      process.kill(gateway.child.pid!, 'SIGKILL');
      await exited(gateway.child, 10_000);
      for (let i = 10; i < 20; i++) await transfer(i);
      gateway = await start();
      for (let i = 20; i < 30; i++) {
        await transfer(i);
        await new Promise((r) => setTimeout(r, 50));
      }

      await waitFor(
        () => (new Set(bodies().map((b) => b.txid)).size >= expected.length ? true : undefined),
        90_000,
      );
      process.kill(gateway.child.pid!, 'SIGTERM');
      await exited(gateway.child, 20_000);
    } finally {
      await receiver.close();
      await devnet.close();
    }

    const idsByTxid = new Map<string, Set<string>>();
    for (const body of bodies())
      idsByTxid.set(body.txid, (idsByTxid.get(body.txid) ?? new Set()).add(body.id));
    expect([...idsByTxid.keys()].sort()).toEqual([...expected].sort());
    // At-least-once delivery may repeat a notification in flight at the kill, but always under its one id.
    for (const [txid, ids] of idsByTxid) expect(ids.size, txid).toBe(1);
  }, 180_000);
});
