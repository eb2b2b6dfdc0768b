import { randomUUID } from 'node:crypto';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmSettling } from '../../src/chains/evm/settling.ts';
import { familyOf } from '../../src/chains/families.ts';
import {
  KEY_IN_PROGRESS,
  KEY_OTHER_REQUEST,
  KEY_OUTCOME_UNKNOWN,
  KEY_UNSETTLED,
} from '../../src/http/idempotency.ts';
import { canonicalJson } from '../../src/http/request-fingerprint.ts';
import { createLogger } from '../../src/logger.ts';
import { IdempotencyKeys, RECOVERED_MESSAGE } from '../../src/services/idempotency-keys.ts';
import { NOT_SENT_MESSAGE, NOT_SENT_STATUS, SendSettler } from '../../src/services/send-settler.ts';
import { type ApiResponse, freshDatabase, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';
import { type SharedEvmDevnet, sharedEvmDevnet } from '../helpers/shared-devnets.ts';

/**
 * Idempotency-Key through the real API: sends of ETH on the run's shared anvil, address and webhook
 * creates, races on one gateway and across two on one database, a request cut short by a restart
 * (its row left `running` with a lapsed lease), another body, another user, an expired key.
 */
const PASSWORD = 'correct horse battery';
let gw: TestGateway;
let devnet: SharedEvmDevnet;
let token: string;
let userId: string;
let env: Record<string, string>;

const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });

async function post(path: string, json: unknown, key?: string, as = token, on = gw): Promise<ApiResponse> {
  return on.request('POST', `/api/v2/ethereum${path}`, { token: as, json, ...(key ? keyed(key) : {}) });
}

/** A fresh address with a stored key and 1 ETH, and one to send to. */
async function fundedPair() {
  const from = await post('/addresses', { password: PASSWORD });
  const to = await post('/addresses', {});
  expect(from.status, from.text).toBe(201);
  await devnet.faucetNative(from.body.data[0].address, parseEther('1'));
  return { from: from.body.data[0].address as string, to: to.body.data[0].address as string };
}

/** Transactions the devnet has seen from `address`. */
/** Transactions the node took from `address`, mined or not (anvil answers a send before its block exists). */
async function sentBy(address: string): Promise<number> {
  return Number(BigInt(await devnet.rpc<string>('eth_getTransactionCount', [address, 'pending'])));
}

async function balanceOf(address: string): Promise<string> {
  return (await gw.request('GET', `/api/v2/ethereum/balances/${address}`, { token })).body.data;
}

/** History rows of a sender, read from the database (the API pages them per user). */
async function historyOf(from: string) {
  return gw.ctx.store.db.selectFrom('transactions').selectAll().where('from', '=', from).execute();
}

async function keyRow(key: string, user = userId) {
  return gw.ctx.store.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('user_id', '=', user)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** What a request cut short leaves: its row running without an answer, its lease lapsed; sent or not. */
function lapse(key: string, sendStarted: boolean) {
  return gw.ctx.store.db
    .updateTable('idempotency_keys')
    .set({
      state: 'running',
      response_status: null,
      response_sealed: null,
      lease_token: randomUUID(),
      locked_until: new Date(Date.now() - 1000).toISOString(),
      send_started_at: sendStarted ? new Date().toISOString() : null,
    })
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .execute();
}

/** Moves a key's lease to end `ms` from now (a negative `ms`: it has lapsed), its token unchanged. */
function leaseUntil(key: string, ms: number) {
  return gw.ctx.store.db
    .updateTable('idempotency_keys')
    .set({ locked_until: new Date(Date.now() + ms).toISOString() })
    .where('key', '=', key)
    .execute();
}

/** A funded pair, a fresh key and the body of a 0.01 ETH send between them. */
async function keyedSend() {
  const { from, to } = await fundedPair();
  return { from, to, key: randomUUID(), body: { from, to, amount: '0.01', password: PASSWORD } };
}

async function quotasLeft(as = token) {
  return (await gw.request('GET', '/api/account', { token: as })).body.data.quotas_left;
}

beforeAll(async () => {
  devnet = await sharedEvmDevnet('ethereum');
  env = {
    ETHEREUM_MAINNET_URLS: devnet.url,
    BSC_MAINNET_URLS: 'http://127.0.0.1:1',
    NODE_RETRIES: '0',
    WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  };
  gw = await startGateway({ env });
  ({ token, userId } = await gw.userToken(undefined, 'plus'));
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

describe('a send with an Idempotency-Key', () => {
  it('answers the same twice and sends once', async () => {
    const { from, to } = await fundedPair();
    const body = { from, to, amount: '0.25', password: PASSWORD };
    const key = randomUUID();
    const first = await post('/transactions', body, key);
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same fields in another order are the same request.
    const again = await post('/transactions', { password: PASSWORD, amount: '0.25', to, from }, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await sentBy(from)).toBe(1);
    expect(await balanceOf(to)).toBe('0.250000000000000000');
    expect(await historyOf(from)).toHaveLength(1);
    // Marked before the transaction went to the node, and named by its history entry.
    const row = await keyRow(key);
    expect(row?.send_started_at).not.toBeNull();
    expect((await historyOf(from))[0]?.idempotency_id).toBe(row?.id);
  });

  it('twenty at once with one key: one send, the others the same answer or 409', async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        post('/transactions', { from, to, amount: '0.01', password: PASSWORD }, key),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length, answers.map((a) => a.text).join('\n')).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1);
    for (const answer of busy) {
      expect(answer.body.message).toBe(KEY_IN_PROGRESS);
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await sentBy(from)).toBe(1);
    expect(await historyOf(from)).toHaveLength(1);
    // Once it is done, the key answers what the send answered.
    const after = await post('/transactions', { from, to, amount: '0.01', password: PASSWORD }, key);
    expect(after.text).toBe(created[0]!.text);
  });

  it('two gateways on one database racing one key: one send', async () => {
    const database = freshDatabase();
    const [a, b] = [await startGateway({ env, database }), await startGateway({ env, database })];
    try {
      const user = await a.userToken(undefined, 'plus');
      const address = async (json: unknown) =>
        (await post('/addresses', json, undefined, user.token, a)).body.data[0].address as string;
      const from = await address({ password: PASSWORD });
      const to = await address({});
      await devnet.faucetNative(from, parseEther('1'));
      const key = randomUUID();
      const body = { from, to, amount: '0.02', password: PASSWORD };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => post('/transactions', body, key, user.token, i % 2 ? a : b)),
      );
      expect(answers.every((x) => x.status === 201 || x.status === 409)).toBe(true);
      expect(new Set(answers.filter((x) => x.status === 201).map((x) => x.text)).size).toBe(1);
      expect(await sentBy(from)).toBe(1);
      const history = await b.request('GET', '/api/v2/ethereum/transactions', { token: user.token });
      expect(history.body.total).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await database.drop();
    }
  });

  it('with another body answers 422 and sends nothing more', async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    expect((await post('/transactions', { from, to, amount: '0.01', password: PASSWORD }, key)).status).toBe(
      201,
    );
    const other = await post('/transactions', { from, to, amount: '0.02', password: PASSWORD }, key);
    expect(other.status).toBe(422);
    expect(other.body.message).toBe(KEY_OTHER_REQUEST);
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    // Another route with the same key is another request too.
    expect((await post('/addresses', {}, key)).status).toBe(422);
    expect(await sentBy(from)).toBe(1);
  });

  it('is scoped per user: another user with the same key sends on its own', async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    expect((await post('/transactions', { from, to, amount: '0.01', password: PASSWORD }, key)).status).toBe(
      201,
    );
    const other = await gw.userToken(undefined, 'plus');
    const theirs = await post('/addresses', { password: PASSWORD }, key, other.token);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    const theirFrom = theirs.body.data[0].address as string;
    await devnet.faucetNative(theirFrom, parseEther('1'));
    // Their own key, on their own send: not mine, and not their address create either.
    const send = await post(
      '/transactions',
      { from: theirFrom, to, amount: '0.01', password: PASSWORD },
      'k',
      other.token,
    );
    expect(send.status, send.text).toBe(201);
    expect(await sentBy(theirFrom)).toBe(1);
  });

  it('runs again once the key has expired', async () => {
    const { from, key, body } = await keyedSend();
    const first = await post('/transactions', body, key);
    await gw.ctx.store.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .execute();
    const second = await post('/transactions', body, key);
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.data.txid).not.toBe(first.body.data.txid);
    expect(await sentBy(from)).toBe(2);
  });

  it('a refusal is kept and given again; a node that does not answer frees the key for another try', async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    const wrong = { from, to, amount: '0.01', password: 'not the password' };
    const refused = await post('/transactions', wrong, key);
    expect(refused.status).toBe(401);
    const again = await post('/transactions', wrong, key);
    expect(again.text).toBe(refused.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // BSC's node is a closed port here: 503 before anything was sent, and the key is free again.
    const bsc = await gw.request('POST', '/api/v2/bsc/addresses', { token, json: {} });
    const sender = bsc.body.data[0] as { address: string; privateKey: string };
    const unreachable = randomUUID();
    const down = await gw.request('POST', '/api/v2/bsc/transactions', {
      token,
      json: { from: sender.address, to, amount: '0.01', privatekey: sender.privateKey },
      ...keyed(unreachable),
    });
    expect(down.status, down.text).toBe(503);
    expect(await keyRow(unreachable)).toBeUndefined();
  });

  it('refuses a malformed key with 422 on Idempotency-Key', async () => {
    for (const key of ['a b', 'x'.repeat(256), 'clé']) {
      const res = await gw.request('POST', '/api/v2/ethereum/addresses', {
        token,
        json: {},
        headers: { 'idempotency-key': key },
      });
      expect(res.status, key).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
    }
  });
});

describe('a request cut short by a restart (its row left running, its lease lapsed)', () => {
  it('while the lease holds: 409 with Retry-After', async () => {
    const { from, key, body } = await keyedSend();
    await post('/transactions', body, key);
    await lapse(key, false);
    await leaseUntil(key, 60_000);
    const busy = await post('/transactions', body, key);
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await sentBy(from)).toBe(1);
  });

  it('before its transaction went to the node: the next request runs it, once', async () => {
    const { from, key, body } = await keyedSend();
    // What a request killed before sending leaves: its row, running, and nothing on chain or in the history.
    const keys = new IdempotencyKeys(gw.ctx.store.db, gw.ctx.masterKey, 3_600_000);
    const request = {
      method: 'POST',
      route: '/api/v2/ethereum/transactions',
      params: {},
      query: {},
      network: 'mainnet',
      body,
    };
    const claimed = await keys.claim({
      userId,
      key,
      method: 'POST',
      route: request.route,
      fingerprint: keys.fingerprint(canonicalJson(request)),
    });
    expect(claimed.kind).toBe('claimed');
    await lapse(key, false);
    const resumed = await post('/transactions', body, key);
    expect(resumed.status, resumed.text).toBe(201);
    expect(resumed.headers.get('idempotent-replayed')).toBeNull();
    expect(await sentBy(from)).toBe(1);
    expect((await post('/transactions', body, key)).text).toBe(resumed.text);
    expect(await sentBy(from)).toBe(1);
    expect(await historyOf(from)).toHaveLength(1);
  });

  it('a request whose lease lapsed while it ran is fenced: it may not send once another took the key', async () => {
    const keys = new IdempotencyKeys(gw.ctx.store.db, gw.ctx.masterKey, 3_600_000);
    const key = randomUUID();
    const request = { userId, key, method: 'POST', route: '/r', fingerprint: 'f' };
    const slow = await keys.claim(request);
    if (slow.kind !== 'claimed') throw new Error(slow.kind);
    // Its lease lapses (its process stalled), its token unchanged: the slow request does not know yet.
    await leaseUntil(key, -1000);
    expect(await keys.renew(slow.claim)).toBe(true);
    await leaseUntil(key, -1000);
    const taker = await keys.claim(request);
    if (taker.kind !== 'claimed') throw new Error(taker.kind);
    expect(await keys.startSend(slow.claim)).toBe(false);
    expect(await keys.startSend(taker.claim)).toBe(true);
    // Once a send has started, a lapsed lease is never taken over.
    await leaseUntil(key, -1000);
    expect((await keys.claim(request)).kind).toBe('outcome-unknown');
  });

  it('after it went to the node and reached the history: answered from the history, not sent again', async () => {
    const { from, key, body } = await keyedSend();
    const sent = await post('/transactions', body, key);
    expect(sent.status).toBe(201);
    await lapse(key, true);
    const recovered = await post('/transactions', body, key);
    expect(recovered.status).toBe(201);
    expect(recovered.body).toEqual({
      status: 201,
      ok: true,
      message: RECOVERED_MESSAGE,
      data: { txid: sent.body.data.txid },
    });
    expect(recovered.headers.get('idempotent-replayed')).toBe('true');
    expect(await sentBy(from)).toBe(1);
    expect(await historyOf(from)).toHaveLength(1);
  });

  it('after it went to the node with no trace in the history: 409, never sent again', async () => {
    const { from, key, body } = await keyedSend();
    await post('/transactions', body, key);
    await lapse(key, true);
    // As if the process died between handing the transaction to the node and writing the history.
    const row = await keyRow(key);
    await gw.ctx.store.db
      .updateTable('transactions')
      .set({ idempotency_id: null })
      .where('idempotency_id', '=', row!.id)
      .execute();
    const unknown = await post('/transactions', body, key);
    expect(unknown.status).toBe(409);
    expect(unknown.body.message).toBe(KEY_OUTCOME_UNKNOWN);
    expect(unknown.headers.get('retry-after')).toBeNull();
    expect(await sentBy(from)).toBe(1);
  });
});

describe("a send cut short between its intent and the node's answer", () => {
  /** As if the process died once the row had its intent: the row without an answer, its txid `txid`. */
  const unanswer = (from: string, txid: string) =>
    gw.ctx.store.db
      .updateTable('transactions')
      .set({ txid, http_status: null, response_json: null })
      .where('from', '=', from)
      .execute();
  /** A settler on a clock of the test's, which starts now. */
  const settlerOnClock = () => {
    const clock = { at: Date.now() };
    const settler = new SendSettler({
      transactions: gw.ctx.transactions,
      registry: gw.ctx.registry,
      familyOf,
      logger: createLogger('silent'),
      now: () => new Date(clock.at),
    });
    return { settler, advance: (ms: number) => (clock.at += ms) };
  };

  it('the node had it: 409 with Retry-After while unsettled, then the 201 it was, never sent again', async () => {
    const { from, key, body } = await keyedSend();
    const sent = await post('/transactions', body, key);
    expect(sent.status, sent.text).toBe(201);
    await lapse(key, true);
    await unanswer(from, sent.body.data.txid);
    const waiting = await post('/transactions', body, key);
    expect(waiting.status).toBe(409);
    expect(waiting.body.message).toBe(KEY_UNSETTLED);
    expect(waiting.headers.get('retry-after')).toBe('5');
    await settlerOnClock().settler.runOnce();
    const recovered = await post('/transactions', body, key);
    expect(recovered.status, recovered.text).toBe(201);
    expect(recovered.body).toEqual({
      status: 201,
      ok: true,
      message: RECOVERED_MESSAGE,
      data: { txid: sent.body.data.txid },
    });
    expect(await sentBy(from)).toBe(1);
    expect(await historyOf(from)).toEqual([
      expect.objectContaining({ txid: sent.body.data.txid, http_status: 201 }),
    ]);
  });

  it('the node never had it: after the grace, the failure that says nothing was sent', async () => {
    const { from, key, body } = await keyedSend();
    expect((await post('/transactions', body, key)).status).toBe(201);
    await lapse(key, true);
    const neverSent = `0x${'ab'.repeat(32)}`;
    await unanswer(from, neverSent);
    const { settler, advance } = settlerOnClock();
    await settler.runOnce();
    expect((await post('/transactions', body, key)).body.message).toBe(KEY_UNSETTLED);
    advance(evmSettling.graceMs + 1000);
    await settler.runOnce();
    const failed = await post('/transactions', body, key);
    expect(failed.status).toBe(NOT_SENT_STATUS);
    expect(failed.body).toMatchObject({ ok: false, message: NOT_SENT_MESSAGE });
    expect(failed.headers.get('idempotent-replayed')).toBe('true');
    expect(await historyOf(from)).toEqual([
      expect.objectContaining({ txid: neverSent, http_status: NOT_SENT_STATUS }),
    ]);
  });
});

describe('creates with an Idempotency-Key', () => {
  it('an address is created once and its private key is never stored in plain text', async () => {
    const before = await quotasLeft();
    const key = randomUUID();
    const first = await post('/addresses', {}, key);
    const again = await post('/addresses', {}, key);
    expect(first.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await quotasLeft()).addresses).toBe(before.addresses - 1);
    const privateKey = first.body.data[0].privateKey as string;
    expect(privateKey).toMatch(/^(0x)?[0-9a-fA-F]{64}$/);
    const row = await keyRow(key);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(privateKey.replace(/^0x/, ''));
    expect(stored).not.toContain(first.body.data[0].address);
    expect(row!.response_sealed).toMatch(/^v1\./);
    expect(row!.send_started_at).toBeNull();
  });

  it("a send's password is not in its row, not even as a plain hash", async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    await post('/transactions', { from, to, amount: '0.01', password: PASSWORD }, key);
    const stored = JSON.stringify(await keyRow(key));
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain(from);
  });

  it('a webhook is created once; its secret is sealed', async () => {
    const before = await quotasLeft();
    const key = randomUUID();
    const body = { url: 'http://127.0.0.1:9/hook', to: devnet.accounts[0]!.address, type: 'ETH' };
    const first = await gw.request('POST', '/api/v2/ethereum/webhooks', { token, json: body, ...keyed(key) });
    const again = await gw.request('POST', '/api/v2/ethereum/webhooks', { token, json: body, ...keyed(key) });
    expect(first.status, first.text).toBe(201);
    expect(again.text).toBe(first.text);
    expect((await quotasLeft()).webhooks).toBe(before.webhooks - 1);
    expect(JSON.stringify(await keyRow(key))).not.toContain(first.body.data.secret);
  });

  it('reads by POST (builds, exports) do not take the key: each call is answered anew', async () => {
    const { from, to } = await fundedPair();
    const key = randomUUID();
    const build = () => post('/transactions/build', { from, to, amount: '0.01' }, key);
    const [first, second] = [await build(), await build()];
    expect(first.status, first.text).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await keyRow(key)).toBeUndefined();
    const exported = await post(`/addresses/export/${from}`, { password: PASSWORD }, key);
    expect(exported.status, exported.text).toBe(200);
    expect(await keyRow(key)).toBeUndefined();
  });

  it('the API description documents the header and the 409 where it is taken', async () => {
    const document = dereferenced((await gw.request('GET', '/openapi.json')).body);
    const send = document.paths['/api/v2/ethereum/transactions'].post;
    expect(send.parameters.map((p: { name: string }) => p.name)).toContain('idempotency-key');
    expect(send.responses['409']).toBeDefined();
    expect(send.responses[String(NOT_SENT_STATUS)]).toBeDefined();
    const build = document.paths['/api/v2/ethereum/transactions/build'].post;
    expect(build.parameters.map((p: { name: string }) => p.name)).not.toContain('idempotency-key');
    expect(build.responses['409']).toBeUndefined();
  });
});
