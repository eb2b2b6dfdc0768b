import { Webhook } from 'standardwebhooks';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { EvmAdapter } from '../../src/chains/evm/adapter.ts';
import { generateEvmKey } from '../../src/chains/evm/keys.ts';
import { NonceManager } from '../../src/chains/evm/nonce-manager.ts';
import { NonceReconciler } from '../../src/chains/evm/nonce-reconciler.ts';
import type { EvmNonceDatabase } from '../../src/chains/evm/nonce-store.ts';
import { withTransactionNonce } from '../../src/chains/evm/transactions.ts';
import { createLogger } from '../../src/logger.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * A send whose broadcast got no answer stays tracked, and the reconciler gets it onto the chain; sends in
 * flight count against the balance; a send the node dropped for good is failed and told. The gateway
 * runs the deliverer, not the watcher: the reconciler is run by hand.
 */
let devnet: EvmDevnet;
let gw: TestGateway;
let roles: BackgroundRoles;
let receiver: WebhookReceiver;
let token: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2/ethereum${path}`, { token, ...options });

beforeAll(async () => {
  devnet = await startEvmDevnet({ chain: 'ethereum' });
  receiver = await startWebhookReceiver();
  gw = await startGateway({
    env: withUnnamedNodesDead({
      ETHEREUM_MAINNET_URLS: devnet.url,
      ROLES: 'api,deliverer',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    }),
  });
  roles = startBackgroundRoles(gw.ctx, { deliveryPollMs: 50 });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 120_000);

/** The EVM family's own tables, beside the shared ones. */
const nonceTables = () => gw.ctx.store.db.withTables<EvmNonceDatabase>();

const reconciler = () =>
  new NonceReconciler(gw.ctx.store.db, gw.ctx.store.dialect, gw.ctx.registry, createLogger('silent'), {
    droppedNotices: gw.ctx.droppedSends,
    history: gw.ctx.transactions,
  });

/** A stored address (no password) holding `wei`. */
async function funded(wei: bigint) {
  const res = await api('POST', '/addresses', { json: {} });
  expect(res.status, res.text).toBe(201);
  const address = res.body.data[0] as { address: string; privateKey: string };
  await devnet.faucetNative(address.address, wei);
  return address;
}

const balanceOf = async (address: string) =>
  BigInt(await devnet.rpc<string>('eth_getBalance', [address, 'latest']));

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await receiver?.close();
  await devnet?.close();
});

describe('nonce reconciler', () => {
  it('re-broadcasts a sent transaction the node never got, then forgets it once mined', async () => {
    const adapter = gw.ctx.registry.adapterOf('ethereum', 'mainnet', EvmAdapter);
    const sender = generateEvmKey();
    const receiver = generateEvmKey();
    await devnet.faucetNative(sender.address, parseEther('1'));
    const nonces = new NonceManager(gw.ctx.store.db, gw.ctx.store.dialect);
    // The answer to the broadcast is lost: the manager keeps the signed transaction as sent.
    const lostAnswer = {
      chain: adapter.chain,
      network: adapter.network,
      getTransactionCount: adapter.getTransactionCount.bind(adapter),
      broadcast: async () => {
        throw new Error('socket hang up');
      },
    };
    const tx = await adapter.buildTransfer(sender.address, receiver.address, parseEther('0.1'));
    await expect(
      nonces.send(
        { chain: 'ethereum', network: 'mainnet', address: sender.address },
        lostAnswer,
        async (nonce) => (await adapter.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw,
      ),
    ).rejects.toThrow();
    expect(await adapter.getBalance(receiver.address)).toBe(0n);
    const pending = () => nonceTables().selectFrom('evm_pending').selectAll().execute();
    expect((await pending()).map((r) => r.state)).toEqual(['sent']);
    // A send writes its intent into the history before the broadcast (only such a one is sent again).
    const { userId } = await gw.userToken();
    await gw.ctx.transactions.recordIntent({
      userId,
      chain: 'ethereum',
      network: 'mainnet',
      type: 'default',
      txid: (await pending())[0]!.tx_hash!,
      from: sender.address,
      to: receiver.address,
      amount: '0.100000000000000000',
    });

    const reconciler = new NonceReconciler(
      gw.ctx.store.db,
      gw.ctx.store.dialect,
      gw.ctx.registry,
      createLogger('silent'),
      { history: gw.ctx.transactions },
    );
    await reconciler.runOnce();
    await devnet.mine(1);
    expect(await adapter.getBalance(receiver.address)).toBe(parseEther('0.1'));
    await reconciler.runOnce();
    expect(await pending()).toEqual([]);
  });

  it('broadcasts a stored transaction later only if the history recorded its intent', async () => {
    const adapter = gw.ctx.registry.adapterOf('ethereum', 'mainnet', EvmAdapter);
    const { userId } = await gw.userToken();
    const nonces = new NonceManager(gw.ctx.store.db, gw.ctx.store.dialect);
    // Signed and stored, then the process died: before its intent (`unrecorded`) or after it (`recorded`).
    const stored = async () => {
      const sender = generateEvmKey();
      const receiver = generateEvmKey();
      await devnet.faucetNative(sender.address, parseEther('1'));
      const tx = await adapter.buildTransfer(sender.address, receiver.address, parseEther('0.1'));
      await expect(
        nonces.send(
          { chain: 'ethereum', network: 'mainnet', address: sender.address },
          {
            chain: adapter.chain,
            network: adapter.network,
            getTransactionCount: adapter.getTransactionCount.bind(adapter),
            broadcast: async () => {
              throw new Error('killed');
            },
          },
          async (nonce) => (await adapter.sign(await withTransactionNonce(tx, nonce), sender.privateKey)).raw,
        ),
      ).rejects.toThrow();
      const row = await nonceTables()
        .selectFrom('evm_pending')
        .selectAll()
        .where('address', '=', sender.address.toLowerCase())
        .executeTakeFirstOrThrow();
      return { receiver: receiver.address, hash: row.tx_hash!, address: row.address };
    };
    const unrecorded = await stored();
    const recorded = await stored();
    await gw.ctx.transactions.recordIntent({
      userId,
      chain: 'ethereum',
      network: 'mainnet',
      type: 'default',
      txid: recorded.hash,
      from: null,
      to: recorded.receiver,
      amount: '0.1',
    });
    // At once: the unrecorded one's process might still write its intent, so it waits, not broadcast.
    await new NonceReconciler(
      gw.ctx.store.db,
      gw.ctx.store.dialect,
      gw.ctx.registry,
      createLogger('silent'),
      { history: gw.ctx.transactions },
    ).runOnce();
    await devnet.mine(1);
    expect(await adapter.getTransaction(unrecorded.hash)).toBeNull();
    // Three minutes on: long past the moment an intent is written after its signing.
    const reconciler = new NonceReconciler(
      gw.ctx.store.db,
      gw.ctx.store.dialect,
      gw.ctx.registry,
      createLogger('silent'),
      { now: () => new Date(Date.now() + 3 * 60_000), history: gw.ctx.transactions },
    );
    await reconciler.runOnce();
    await devnet.mine(1);
    expect(await adapter.getBalance(recorded.receiver)).toBe(parseEther('0.1'));
    expect(await adapter.getBalance(unrecorded.receiver)).toBe(0n);
    expect(await adapter.getTransaction(unrecorded.hash)).toBeNull();
    // Its nonce is given back: nothing of that address is left waiting.
    const left = await nonceTables()
      .selectFrom('evm_pending')
      .select('state')
      .where('address', '=', unrecorded.address)
      .execute();
    expect(left.filter((r) => r.state === 'sent')).toEqual([]);
  });
});

describe('sends in flight count against the balance', () => {
  it('eight concurrent sends of 0.8 from 2 ETH: two land, six are refused, the receiver gets exactly the 201s', async () => {
    const from = await funded(parseEther('2'));
    const to = generateEvmKey().address;
    // The node holds every transaction in its pool until a block is mined, as a real chain between blocks
    // does: each one alone fits the balance, so the node takes them all and drops the overdraft at mining.
    await devnet.rpc('evm_setAutomine', [false]);
    let results: Awaited<ReturnType<typeof api>>[];
    try {
      results = await Promise.all(
        Array.from({ length: 8 }, () =>
          api('POST', '/transactions', {
            json: { from: from.address, to, amount: '0.8', privatekey: from.privateKey },
          }),
        ),
      );
      await devnet.mine(1);
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
    }
    const sent = results.filter((res) => res.status === 201);
    for (const res of results.filter((r) => r.status !== 201)) {
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(/^insufficient funds for gas \* price \+ value/i);
    }
    for (const res of sent) {
      const receipt = await devnet.rpc<{ status: string } | null>('eth_getTransactionReceipt', [
        res.body.data.txid,
      ]);
      expect(receipt?.status, `${res.body.data.txid} was answered 201 and never mined`).toBe('0x1');
    }
    expect(sent.length).toBe(2);
    expect(await balanceOf(to)).toBe(parseEther('0.8') * BigInt(sent.length));
  });
});

describe('a send the node dropped after answering 201', () => {
  it("is failed in the history with the reason, in the lookups, and told to the sender's webhook", async () => {
    const from = await funded(parseEther('1'));
    const to = generateEvmKey().address;
    const hook = await api('POST', '/webhooks', {
      json: { url: `${receiver.url}/from`, from: from.address },
    });
    expect(hook.status, hook.text).toBe(201);
    // A subscription on the receiver alone: no transfer reached it, so it hears nothing.
    const other = await api('POST', '/webhooks', { json: { url: `${receiver.url}/to`, to } });
    expect(other.status, other.text).toBe(201);

    await devnet.rpc('evm_setAutomine', [false]);
    let txid: string;
    try {
      const sent = await api('POST', '/transactions', {
        json: { from: from.address, to, amount: '0.5', privatekey: from.privateKey },
      });
      expect(sent.status, sent.text).toBe(201);
      txid = sent.body.data.txid;
      // The node forgets it (evicted, restarted), and the coin is gone meanwhile: it can never be mined.
      await devnet.rpc('anvil_dropTransaction', [txid]);
      await devnet.rpc('anvil_setBalance', [from.address, '0x0']);
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
    }
    const before = await api('GET', `/transactions/${txid}/decoded`);
    expect(before.status, before.text).toBe(422);
    expect(before.body.message).toBe('transaction not found');

    await reconciler().runOnce();

    const history = await api('GET', '/transactions?page=1');
    const row = history.body.data.find((r: { txid: string | null }) => r.txid === txid);
    expect(row.httpStatus).toBe('201');
    expect(JSON.parse(row.responseJson)).toMatchObject({
      txid,
      status: 'FAILED',
      error: expect.stringMatching(
        /^dropped by the node: never mined \(re-broadcast refused: .*insufficient funds/i,
      ),
    });
    for (const path of [`/transactions/${txid}`, `/transactions/${txid}/decoded`]) {
      const lookup = await api('GET', path);
      expect(lookup.status, lookup.text).toBe(422);
      expect(lookup.body.message).toBe(`transaction not found: ${JSON.parse(row.responseJson).error}`);
    }

    const [hit] = await waitFor(() => {
      const hits = receiver.received.filter((r) => r.path === '/from');
      return hits.length > 0 ? hits : undefined;
    }, 10_000);
    new Webhook(hook.body.data.secret).verify(hit!.body, hit!.headers as Record<string, string>);
    expect(JSON.parse(hit!.body)).toMatchObject({
      event: 'dropped',
      webhook_id: hook.body.data.webhook,
      txid,
      from: from.address,
      to,
      type: 'ETH',
      amount_raw: parseEther('0.5').toString(),
      decimals: 18,
      blocknumber: null,
      blockchain: 'ethereum',
      network: 'mainnet',
      error: JSON.parse(row.responseJson).error,
    });
    // Another pass finds nothing new: one notification, the history unchanged.
    await reconciler().runOnce();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((r) => r.path === '/from')).toHaveLength(1);
    expect(receiver.received.filter((r) => r.path === '/to')).toHaveLength(0);
  });
});
