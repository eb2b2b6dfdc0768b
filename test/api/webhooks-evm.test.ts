import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { freePort, waitFor } from '../helpers/processes.ts';
import { SHARED_EVM_CHAINS, type SharedEvmChain } from '../helpers/shared-evm-chains.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

let receiver: WebhookReceiver;
let receiverUrl: string;

const CHAINS = SHARED_EVM_CHAINS;
const devnets = {} as Record<SharedEvmChain, EvmDevnet>;
let gw: TestGateway;
let roles: BackgroundRoles;
let token: string;

const api = (method: string, path: string, options: RequestOptions = {}) =>
  gw.request(method, `/api/v2${path}`, { token, ...options });
/** A fresh address, checksummed: subscriptions accept any case; webhooks and payloads show EIP-55. */
const newAddress = () => getAddress(`0x${randomBytes(20).toString('hex')}`);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiverUrl = receiver.url;
  await Promise.all(
    CHAINS.map(async (chain) => {
      devnets[chain] = await startEvmDevnet({ chain });
    }),
  );
  const env: Record<string, string> = { WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', LOG_LEVEL: 'warn' };
  for (const chain of CHAINS) {
    env[`${chain.toUpperCase()}_MAINNET_URLS`] = devnets[chain].url;
    env[`${chain.toUpperCase()}_TESTNET_URLS`] = devnets[chain].url;
  }
  gw = await startGateway({ env: withUnnamedNodesDead(env) });
  roles = startBackgroundRoles(gw.ctx, { pollMs: 50 });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 120_000);

afterAll(async () => {
  await roles?.stop();
  await gw?.close();
  await Promise.all(Object.values(devnets).map((devnet) => devnet.close()));
  void receiver?.close();
});

const hits = (path: string) => receiver.received.filter((r) => r.path === path);
const payloads = (path: string) => hits(path).map((r) => JSON.parse(r.body) as Record<string, unknown>);

/** Waits until the receiver has `count` requests for `path`. */
function deliveries(path: string, count: number, timeoutMs = 10_000) {
  return waitFor(() => (hits(path).length >= count ? hits(path) : undefined), timeoutMs);
}

/** Waits until the chain's watcher has handled every block up to the devnet's head. */
async function caughtUp(chain: SharedEvmChain) {
  const head = Number(BigInt(await devnets[chain].rpc<Hex>('eth_blockNumber')));
  await waitFor(async () => {
    const row = await gw.ctx.store.db
      .selectFrom('chain_cursors')
      .select('block_number')
      .where('chain', '=', chain)
      .where('network', '=', 'mainnet')
      .executeTakeFirst();
    return row && Number(row.block_number) >= head ? true : undefined;
  }, 10_000);
}

/** Nothing more arrives for `path` once the watcher is past the head and the outbox had time to send. */
async function expectQuiet(chain: SharedEvmChain, path: string, count: number) {
  await caughtUp(chain);
  await new Promise((r) => setTimeout(r, 400));
  expect(hits(path)).toHaveLength(count);
}

async function subscribe(chain: SharedEvmChain, path: string, body: Record<string, unknown>) {
  const res = await api('POST', `/${chain}/webhooks`, { json: { url: `${receiverUrl}${path}`, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { webhook: string; secret: string };
}

async function receiptOf(chain: SharedEvmChain, hash: Hex) {
  return devnets[chain].rpc<{ blockNumber: Hex; blockHash: Hex }>('eth_getTransactionReceipt', [hash]);
}

describe('ethereum webhooks end to end (real anvil)', () => {
  it('notifies a matching ERC20 transfer, signed; a non-matching one sends nothing', async () => {
    const devnet = devnets.ethereum;
    const usdt = devnet.tokens.erc20.USDT;
    const to = newAddress();
    const { webhook, secret } = await subscribe('ethereum', '/usdt', {
      to,
      contractaddress: usdt,
      type: 'ERC20',
    });
    await devnet.faucetErc20(usdt, newAddress(), 1_000_000n);
    const hash = await devnet.faucetErc20(usdt, to, 108_935n);
    const [hit] = await deliveries('/usdt', 1);
    const payload = JSON.parse(hit!.body);
    expect(payload).toMatchObject({
      webhook_id: webhook,
      from: '0x0000000000000000000000000000000000000000',
      to,
      type: 'ERC20',
      contractaddress: getAddress(usdt),
      txid: hash,
      amount: 0.108935,
      amount_raw: '108935',
      decimals: 6,
      blockchain: 'ethereum',
      network: 'mainnet',
      event: 'transfer',
      tokenid: null,
      blocknumber: BigInt((await receiptOf('ethereum', hash)).blockNumber).toString(),
    });
    expect(payload.datetime).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    expect(hit!.headers['webhook-id']).toBe(payload.id);
    expect(hit!.headers['x-signature']).toBe(
      createHmac('sha256', secret).update(payload.txid).digest('base64'),
    );
    await expectQuiet('ethereum', '/usdt', 1);
  });

  it('notifies a native ETH transfer', async () => {
    const to = newAddress();
    // Subscribed in lower case: matching ignores case, the payload shows the EIP-55 form.
    await subscribe('ethereum', '/eth', { to: to.toLowerCase(), type: 'ETH' });
    const hash = await devnets.ethereum.faucetNative(to, 1_250_000_000_000_000_000n);
    await deliveries('/eth', 1);
    expect(payloads('/eth')[0]).toMatchObject({
      txid: hash,
      type: 'ETH',
      to,
      from: getAddress(devnets.ethereum.faucetAccount.address),
      contractaddress: null,
      amount: 1.25,
      amount_raw: '1250000000000000000',
      decimals: 18,
    });
  });

  it('writes the amount exactly, every wei, in the signed body and in the notification list', async () => {
    const to = newAddress();
    const { secret } = await subscribe('ethereum', '/exact', { to, type: 'ETH' });
    const hash = await devnets.ethereum.faucetNative(to, 123_456_789_012_345_678n);
    const [hit] = await deliveries('/exact', 1);
    // A double would make it 0.12345678901234568: the text must carry the literal itself.
    expect(hit!.body).toContain('"amount":0.123456789012345678,');
    expect(hit!.body).toContain('"amount_raw":"123456789012345678"');
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
    const id = JSON.parse(hit!.body).id as string;
    const list = await api('GET', '/ethereum/webhooks/notifications');
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(list.body.data.find((n: { id: string }) => n.id === id)).toMatchObject({
      txid: hash,
      type: 'ETH',
      to,
      from: getAddress(devnets.ethereum.faucetAccount.address),
    });
    expect(list.text).toContain('"amount":0.123456789012345678,"amount_raw":"123456789012345678"');
  });

  it('shows stored webhooks with EIP-55 addresses, whatever case they were given in', async () => {
    const from = newAddress();
    const to = newAddress();
    const usdt = getAddress(devnets.ethereum.tokens.erc20.USDT);
    const { webhook } = await subscribe('ethereum', '/shown', {
      from: from.toLowerCase(),
      to: `0x${to.slice(2).toUpperCase()}`,
      contractaddress: usdt.toLowerCase(),
    });
    const shown = { from, to, contractaddress: usdt };
    expect((await api('GET', `/ethereum/webhooks/${webhook}`)).body.data).toMatchObject(shown);
    const listed = (await api('GET', '/ethereum/webhooks')).body.data as { id: string }[];
    expect(listed.find((w) => w.id === webhook)).toMatchObject(shown);
    const put = await api('PUT', `/ethereum/webhooks/${webhook}`, {
      json: { url: `${receiverUrl}/shown`, to: to.toLowerCase(), contractaddress: usdt },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ from: null, to, contractaddress: usdt });
    // Stored in the form matching compares.
    const row = await gw.ctx.store.db
      .selectFrom('webhooks')
      .select(['to_address', 'contract_address'])
      .where('id', '=', webhook)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ to_address: to.toLowerCase(), contract_address: usdt.toLowerCase() });
  });

  it('notifies an ERC721 transfer with its token id', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    await subscribe('ethereum', '/nft', { to, type: 'ERC721' });
    const tokenId = await devnet.faucetErc721(devnet.tokens.erc721.NFT, to);
    await deliveries('/nft', 1);
    expect(payloads('/nft')[0]).toMatchObject({
      type: 'ERC721',
      tokenid: tokenId.toString(),
      contractaddress: getAddress(devnet.tokens.erc721.NFT),
      to,
      amount: 1,
      amount_raw: '1',
      decimals: 0,
    });
  });

  it('sends nothing for a transfer reorged out before it reached the confirmations asked for', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    const { webhook } = await subscribe('ethereum', '/deep', { to, confirmations: 3 });
    await devnet.faucetNative(to, 10n ** 15n);
    // The watcher has seen it and parked it, waiting for depth 3.
    const parked = () =>
      gw.ctx.store.db.selectFrom('pending_events').select('id').where('webhook_id', '=', webhook).execute();
    await waitFor(async () => ((await parked()).length === 1 ? true : undefined), 10_000);
    await devnet.reorg(1);
    await devnet.mine(3);
    await expectQuiet('ethereum', '/deep', 0);
    expect(await parked()).toEqual([]);
    const rows = await gw.ctx.store.db
      .selectFrom('notifications')
      .select('id')
      .where('webhook_id', '=', webhook)
      .execute();
    expect(rows).toEqual([]);
  });

  it('sends `reverted` for a notified transfer the reorg removed', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    const { secret } = await subscribe('ethereum', '/reverted', { to, notify_reverted: true });
    const hash = await devnet.faucetNative(to, 3n * 10n ** 15n);
    await deliveries('/reverted', 1);
    await devnet.reorg(1);
    await devnet.mine(1);
    const [first, second] = await deliveries('/reverted', 2);
    const sent = JSON.parse(first!.body);
    const reverted = JSON.parse(second!.body);
    expect(sent).toMatchObject({ event: 'transfer', txid: hash });
    expect(reverted).toMatchObject({
      event: 'reverted',
      txid: hash,
      blocknumber: sent.blocknumber,
      to,
      amount_raw: '3000000000000000',
      type: 'ETH',
    });
    expect(reverted.id).not.toBe(sent.id);
    expect(() =>
      new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>),
    ).not.toThrow();
    // The dropped transaction is gone for good: no further notification.
    expect(await devnet.rpc('eth_getTransactionReceipt', [hash])).toBeNull();
    await expectQuiet('ethereum', '/reverted', 2);
  });

  it('notifies a transaction again when the new chain includes it in another block', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    const plain = await subscribe('ethereum', '/again', { to });
    const withReverted = await subscribe('ethereum', '/again-reverted', { to, notify_reverted: true });
    await devnet.mine(1);
    const hash = await devnet.faucetNative(to, 5n * 10n ** 15n);
    const before = await receiptOf('ethereum', hash);
    await deliveries('/again', 1);
    await deliveries('/again-reverted', 1);

    // anvil_reorg replaces the last 2 blocks and mines the given transactions into them: this one into
    // the first new block (offset 0), one block earlier than before.
    const raw = await devnet.rpc<Hex>('eth_getRawTransactionByHash', [hash]);
    await devnet.rpc('anvil_reorg', [2, [[raw, 0]]]);
    const after = await receiptOf('ethereum', hash);
    expect(BigInt(after.blockNumber)).toBe(BigInt(before.blockNumber) - 1n);
    expect(after.blockHash).not.toBe(before.blockHash);
    await devnet.mine(1);

    await deliveries('/again', 2);
    await deliveries('/again-reverted', 3);
    await expectQuiet('ethereum', '/again-reverted', 3);
    expect(hits('/again')).toHaveLength(2);

    const oldBlock = BigInt(before.blockNumber).toString();
    const newBlock = BigInt(after.blockNumber).toString();
    const summary = (path: string) =>
      payloads(path)
        .map((p) => `${p['event']}@${p['blocknumber']}:${p['txid']}`)
        .sort();
    expect(summary('/again')).toEqual(
      [`transfer@${newBlock}:${hash}`, `transfer@${oldBlock}:${hash}`].sort(),
    );
    expect(summary('/again-reverted')).toEqual(
      [`reverted@${oldBlock}:${hash}`, `transfer@${newBlock}:${hash}`, `transfer@${oldBlock}:${hash}`].sort(),
    );
    expect(new Set(payloads('/again-reverted').map((p) => p['id'])).size).toBe(3);
    // The outbox keeps one row per block the transfer was seen in.
    const rows = await gw.ctx.store.db
      .selectFrom('notifications')
      .select(['event', 'block_hash'])
      .where('webhook_id', 'in', [plain.webhook, withReverted.webhook])
      .where('event', '=', 'transfer')
      .execute();
    expect(new Set(rows.map((r) => r.block_hash))).toEqual(new Set([before.blockHash, after.blockHash]));
  });

  it('notifies a transfer again, under a new id, when the chain switches back to the block it was in', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    await subscribe('ethereum', '/switch-back', { to, notify_reverted: true });
    await devnet.mine(1);
    const beforeBlock = await devnet.rpc<Hex>('evm_snapshot');
    const hash = await devnet.faucetNative(to, 7n * 10n ** 15n);
    const raw = await devnet.rpc<Hex>('eth_getRawTransactionByHash', [hash]);
    const original = await receiptOf('ethereum', hash);
    const block = await devnet.rpc<{ timestamp: Hex; baseFeePerGas: Hex }>('eth_getBlockByHash', [
      original.blockHash,
      false,
    ]);
    await deliveries('/switch-back', 1);

    // Another fork wins: an empty block at that height and one above it, so the watcher sees the switch.
    await devnet.rpc('evm_revert', [beforeBlock]);
    const forkPoint = await devnet.rpc<Hex>('evm_snapshot');
    await devnet.mine(2);
    await deliveries('/switch-back', 2);

    // The first fork wins again: the same signed transaction in the same block (same time and base fee
    // give the same hash), and blocks above it.
    await devnet.rpc('evm_revert', [forkPoint]);
    await devnet.rpc('evm_setNextBlockTimestamp', [Number(BigInt(block.timestamp))]);
    await devnet.rpc('anvil_setNextBlockBaseFeePerGas', [block.baseFeePerGas]);
    await devnet.rpc('eth_sendRawTransaction', [raw]);
    // Mined at once, but on a busy machine anvil may answer the receipt a moment later.
    const replayed = await waitFor(async () => (await receiptOf('ethereum', hash)) ?? undefined, 10_000);
    expect(replayed.blockHash).toBe(original.blockHash);
    await devnet.mine(3);

    const hits = await deliveries('/switch-back', 3);
    await expectQuiet('ethereum', '/switch-back', 3);
    const [sent, reverted, again] = hits.map((hit) => JSON.parse(hit.body) as Record<string, unknown>);
    const blockNumber = BigInt(original.blockNumber).toString();
    expect(sent).toMatchObject({ event: 'transfer', txid: hash, blocknumber: blockNumber });
    expect(reverted).toMatchObject({ event: 'reverted', txid: hash, blocknumber: blockNumber });
    expect(again).toMatchObject({ event: 'transfer', txid: hash, blocknumber: blockNumber, to });
    // Each is its own notification: its own id, in the body and in `webhook-id`.
    expect(new Set([sent!['id'], reverted!['id'], again!['id']]).size).toBe(3);
    expect(hits.map((hit) => hit.headers['webhook-id'])).toEqual([
      sent!['id'],
      reverted!['id'],
      again!['id'],
    ]);
  });

  it('cancels a notification still waiting for a retry when its block leaves, and notifies the re-inclusion', async () => {
    const devnet = devnets.ethereum;
    const to = newAddress();
    // Nothing listens on this port: every attempt fails, and the backoff policy schedules the next.
    const deadUrl = `http://127.0.0.1:${await freePort()}/down`;
    const created = await api('POST', '/ethereum/webhooks', {
      json: { url: deadUrl, to, notify_reverted: true, retry: 'backoff' },
    });
    expect(created.status, created.text).toBe(201);
    const webhook = created.body.data.webhook as string;
    const rows = () =>
      gw.ctx.store.db
        .selectFrom('notifications')
        .select(['id', 'event', 'status', 'attempts', 'block_hash', 'reverts_id'])
        .where('webhook_id', '=', webhook)
        .orderBy('created_at')
        .execute();
    await devnet.mine(1);
    const hash = await devnet.faucetNative(to, 4n * 10n ** 15n);
    const before = await receiptOf('ethereum', hash);
    const [first] = await waitFor(async () => {
      const found = await rows();
      return found[0] !== undefined && found[0].attempts === 1 ? found : undefined;
    }, 10_000);
    expect(first).toMatchObject({ event: 'transfer', status: 'pending' }); // its retry is scheduled

    const raw = await devnet.rpc<Hex>('eth_getRawTransactionByHash', [hash]);
    await devnet.rpc('anvil_reorg', [2, [[raw, 0]]]);
    const after = await receiptOf('ethereum', hash);
    expect(after.blockHash).not.toBe(before.blockHash);
    await devnet.mine(1);
    await caughtUp('ethereum');

    const found = await waitFor(async () => {
      const all = await rows();
      return all.length === 3 ? all : undefined;
    }, 10_000);
    const byEvent = (event: string, blockHash: string) =>
      found.find((row) => row.event === event && row.block_hash === blockHash);
    expect(byEvent('transfer', before.blockHash)).toMatchObject({ id: first!.id, status: 'cancelled' });
    expect(byEvent('reverted', before.blockHash)).toMatchObject({ reverts_id: first!.id });
    expect(byEvent('transfer', after.blockHash)?.id).not.toBe(first!.id);
    const retry = await api('POST', `/ethereum/webhooks/notifications/${first!.id}/retry`);
    expect(retry.status, retry.text).toBe(422);
  });
});

describe.each([
  ['bsc', 'BEP20'],
  ['polygon', 'POL'],
  ['arbitrum', 'ERC20'],
] as [SharedEvmChain, string][])('%s webhooks', (chain, type) => {
  it(`notifies a matching ${type} transfer`, async () => {
    const devnet = devnets[chain];
    const to = newAddress();
    const path = `/${chain}`;
    const { secret } = await subscribe(chain, path, { to, type });
    const native = type === 'POL';
    const hash = native
      ? await devnet.faucetNative(to, 2n * 10n ** 18n)
      : await devnet.faucetErc20(devnet.tokens.erc20.USDT, to, 2_000_000n);
    const [hit] = await deliveries(path, 1);
    expect(JSON.parse(hit!.body)).toMatchObject({
      blockchain: chain,
      network: 'mainnet',
      type,
      txid: hash,
      to,
      amount: 2,
      decimals: native ? 18 : 6,
      contractaddress: native ? null : getAddress(devnet.tokens.erc20.USDT),
      event: 'transfer',
    });
    expect(() => new Webhook(secret).verify(hit!.body, hit!.headers as Record<string, string>)).not.toThrow();
  });
});
