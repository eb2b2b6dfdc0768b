// The conformance suite: one table of scenarios, run through the real HTTP API of a real gateway for
// every chain a family serves. Per chain only a driver (driver.ts) differs. A scenario a family cannot
// pass yet is named in its driver's `gaps` with the reason, and shows as skipped with that reason.
import { formatUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../src/config/plans.ts';
import type { BackgroundRoles } from '../../src/roles.ts';
import type { ApiResponse, TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { sendOutcomesOf } from '../helpers/send-outcomes.ts';
import { startWatchingGateway } from '../helpers/watching-gateway.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import type { ChainApi, ConformanceDriver, TokenDriver } from './driver.ts';

const PASSWORD = 'correct horse battery';
/** How many addresses the sweep scenario gathers from. */
const SWEPT = 50;
/** A scenario waits on blocks, sends and deliveries, and seals and opens keys: slow on a busy machine. */
const SCENARIO_TIMEOUT_MS = 120_000;

/** What a scenario works with: the gateway of this chain's run, its API, the driver and a webhook receiver. */
export interface ScenarioContext {
  driver: ConformanceDriver;
  gw: TestGateway;
  api: ChainApi;
  receiver: WebhookReceiver;
}

export interface Scenario {
  name: string;
  /** Runs only for a chain with tokens. */
  needsToken?: true;
  run(context: ScenarioContext): Promise<void>;
}

function tokenOf(driver: ConformanceDriver): TokenDriver {
  if (driver.token === undefined) throw new Error(`${driver.chain} has no tokens`);
  return driver.token;
}

/** The amount as the API takes it: a decimal string in the asset's units. */
const units = (value: bigint, decimals: number) => formatUnits(value, decimals);

async function newAddress({ api, driver }: ScenarioContext, password?: string): Promise<string> {
  const res = await api('POST', '/addresses', { json: password === undefined ? {} : { password } });
  expect(res.status, res.text).toBe(201);
  return driver.createdAddress(res.body);
}

async function listed({ api }: ScenarioContext): Promise<string[]> {
  const res = await api('GET', '/addresses');
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((row: { address: string }) => row.address);
}

function expectTxid(res: ApiResponse, driver: ConformanceDriver): string {
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.txid).toMatch(driver.txid);
  return res.body.data.txid;
}

/** A history row, as far as the scenarios read it. */
interface HistoryRow {
  id: string;
  txid: string | null;
  amount: string | null;
  httpStatus: string;
  responseJson: string;
}

/** Every row of the caller's history on this chain, page after page. */
async function wholeHistory(api: ChainApi): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  for (let page = 1; ; page++) {
    const res = await api('GET', `/transactions?page=${page}`);
    expect(res.status, res.text).toBe(200);
    rows.push(...res.body.data);
    if (page >= res.body.last_page) return rows;
  }
}

/** One whole coin of the chain, in base units. */
const oneCoin = (driver: ConformanceDriver) => 10n ** BigInt(driver.native.decimals);

/** POST /transactions of `amount` base units from a stored key, its password given as `password`. */
function postNativeSend(
  { api, driver }: ScenarioContext,
  { from, to }: { from: string; to: string },
  amount: bigint,
  password = PASSWORD,
) {
  return api('POST', '/transactions', {
    json: { from, to, amount: units(amount, driver.native.decimals), password },
  });
}

/**
 * The chain's sponsor for this gateway: an operator's custodial address, funded with the coin (and, where
 * the family pays with staked resources, staking), named as the CLI names it. Made once per run.
 */
const sponsors = new WeakMap<TestGateway, string>();
async function sponsorFor(context: ScenarioContext): Promise<string> {
  const { gw, driver } = context;
  const known = sponsors.get(gw);
  if (known !== undefined) return known;
  const operator = await gw.userToken('operator@example.com', 'enterprise');
  const operatorApi: ChainApi = (method, path, options = {}) =>
    gw.request(method, `/api/v2/${driver.chain}${path}`, { token: operator.token, ...options });
  const res = await operatorApi('POST', '/addresses', { json: { password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const address = driver.createdAddress(res.body);
  await driver.fundNative(address, 1000n * oneCoin(driver));
  await driver.prepareSponsor?.(operatorApi, address, PASSWORD);
  const place = { userId: operator.userId, chain: driver.chain, network: 'mainnet' as const };
  const privateKey = await gw.ctx.custody.exportKey(place, address, PASSWORD);
  await gw.ctx.sponsorship.sponsors.set({ ...place, address, budget: null, period: 'month' }, privateKey);
  sponsors.set(gw, address);
  return address;
}

/** A sponsored job's answer once it has ended (completed or failed); the devnet moves on meanwhile. */
async function jobEnd({ api, driver }: ScenarioContext, path: string): Promise<ApiResponse['body']> {
  return waitFor(async () => {
    await driver.settle();
    const res = await api('GET', path);
    expect(res.status, res.text).toBe(200);
    const { status } = res.body.data;
    return status === 'completed' || String(status).startsWith('failed') ? res.body.data : undefined;
  }, 90_000);
}

/** A password address funded with `funds` base units of the native coin, and a new address to send to. */
async function fundedPair(context: ScenarioContext, funds: bigint): Promise<{ from: string; to: string }> {
  return { from: await fundedAddress(context, funds), to: await newAddress(context) };
}

/** A password address funded with `funds` base units of the native coin. */
async function fundedAddress(context: ScenarioContext, funds: bigint): Promise<string> {
  const address = await newAddress(context, PASSWORD);
  await context.driver.fundNative(address, funds);
  return address;
}

/** One native send by the gateway with a stored key; resolves once it landed, to its txid. */
async function sendNative(context: ScenarioContext, amount: bigint): Promise<{ txid: string; to: string }> {
  const { driver } = context;
  const pair = await fundedPair(context, 10n * amount + 10n * oneCoin(driver));
  const txid = expectTxid(await postNativeSend(context, pair, amount), driver);
  await driver.settle();
  return { txid, to: pair.to };
}

/** What a receiver was paid of the coin (its balance, or more where the chain takes rent from it). */
function received(driver: ConformanceDriver, api: ChainApi, address: string): Promise<bigint> {
  return (driver.received ?? driver.nativeBalance)(api, address);
}

/** Built by the gateway, signed with the client library, broadcast by the gateway; resolves once landed. */
async function buildSignBroadcast(context: ScenarioContext, amount: bigint) {
  const { api, driver } = context;
  const key = driver.newKey();
  await driver.fundNative(key.address, 10n * amount + 10n * oneCoin(driver));
  const to = await newAddress(context);
  const built = await api('POST', '/transactions/build', {
    json: {
      from: key.address,
      to,
      amount: units(amount, driver.native.decimals),
      ...driver.buildFields?.(key),
    },
  });
  expect(built.status, built.text).toBe(200);
  const signed = await driver.signOutside(built.body, key);
  const sent = await api('POST', '/transactions/broadcast', { json: signed.body });
  expect(expectTxid(sent, driver)).toBe(signed.txid);
  await driver.settle();
  return { txid: signed.txid, to };
}

async function subscribe({ api, receiver }: ScenarioContext, path: string, body: Record<string, unknown>) {
  const res = await api('POST', '/webhooks', { json: { url: `${receiver.url}${path}`, ...body } });
  expect(res.status, res.text).toBe(201);
}

/** The bodies the receiver got on `path`, once there are `count` of them. */
async function deliveries({ receiver }: ScenarioContext, path: string, count: number) {
  const hits = await waitFor(() => {
    const found = receiver.received.filter((r) => r.path === path);
    return found.length >= count ? found : undefined;
  }, 20_000);
  return hits.map((hit) => JSON.parse(hit.body) as Record<string, unknown>);
}

/** A scenario in which one way of sending moves 1/`share` of a coin, and the receiver's balance is that. */
function receiverGets(
  name: string,
  send: (context: ScenarioContext, amount: bigint) => Promise<{ to: string }>,
  share: bigint,
): Scenario {
  return {
    name,
    async run(context) {
      const amount = oneCoin(context.driver) / share;
      const { to } = await send(context, amount);
      expect(await received(context.driver, context.api, to)).toBe(amount);
    },
  };
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'address lifecycle: create with a password, list, export, change the password, delete',
    async run(context) {
      const { api, driver } = context;
      const address = await newAddress(context, PASSWORD);
      expect(await listed(context)).toContain(address);
      const exported = await driver.exportKey(api, address, PASSWORD);
      expect(exported.response.status, exported.response.text).toBe(200);
      expect(driver.addressOf(exported.privateKey!)).toBe(address);
      const changed = await api('PUT', `/addresses/${address}`, {
        json: { old_password: PASSWORD, new_password: 'second password' },
      });
      expect(changed.status, changed.text).toBe(200);
      expect((await driver.exportKey(api, address, PASSWORD)).response.status).toBe(401);
      expect((await driver.exportKey(api, address, 'second password')).privateKey).toBe(exported.privateKey);
      expect((await api('DELETE', `/addresses/${address}`)).status).toBe(200);
      expect(await listed(context)).not.toContain(address);
      expect((await api('DELETE', `/addresses/${address}`)).status).toBe(404);
    },
  },
  {
    name: 'address import: a key made outside comes in as its address, once',
    async run(context) {
      const { api, driver } = context;
      const key = driver.newKey();
      const imported = await api('POST', '/addresses/import', {
        json: { privatekey: key.privateKey, password: PASSWORD },
      });
      expect(imported.status, imported.text).toBe(201);
      expect(driver.importedAddress(imported.body)).toBe(key.address);
      expect(await listed(context)).toContain(key.address);
      const exported = await driver.exportKey(api, key.address, PASSWORD);
      expect(driver.addressOf(exported.privateKey!)).toBe(key.address);
      const again = await api('POST', '/addresses/import', { json: { privatekey: key.privateKey } });
      expect(again.status, again.text).toBe(422);
    },
  },
  receiverGets('native send with a stored key: the receiver gets the amount', sendNative, 4n),
  {
    name: 'token send with a stored key: the receiver gets the tokens',
    needsToken: true,
    async run(context) {
      const { api, driver } = context;
      const token = tokenOf(driver);
      const amount = 25n * 10n ** BigInt(token.decimals - 1);
      const { from, to } = await fundedPair(context, 50n * oneCoin(driver));
      await token.fund(from, 2n * amount);
      expectTxid(
        await api('POST', token.sendPath, {
          json: {
            from,
            to,
            contractaddress: token.contract,
            amount: units(amount, token.decimals),
            password: PASSWORD,
          },
        }),
        driver,
      );
      await driver.settle();
      expect(await token.balance(api, to)).toBe(amount);
      expect(await token.balance(api, from)).toBe(amount);
    },
  },
  receiverGets('build, sign outside the gateway with the client library, broadcast', buildSignBroadcast, 2n),
  {
    name: 'history lists both a send and an outside-signed broadcast',
    async run(context) {
      const amount = oneCoin(context.driver) / 10n;
      const sent = await sendNative(context, amount);
      const broadcast = await buildSignBroadcast(context, amount);
      const history = await context.api('GET', '/transactions?page=1');
      expect(history.status, history.text).toBe(200);
      const txids = history.body.data.map((record: { txid: string | null }) => record.txid);
      expect(txids).toContain(sent.txid);
      expect(txids).toContain(broadcast.txid);
    },
  },
  {
    name: 'reads of a landed send: head, its block, the transaction raw and decoded, its receipt, balances',
    async run(context) {
      const { api, driver } = context;
      const amount = oneCoin(driver) / 4n;
      const { txid, to } = await sendNative(context, amount);
      const head = await api('GET', '/blocks/number');
      expect(head.status, head.text).toBe(200);
      expect(head.body.data.blocknumber).toBeGreaterThan(0);
      const block = await api('GET', `/blocks/${head.body.data.blocknumber}`);
      expect(block.status, block.text).toBe(200);
      // The raw answer is the node's (Bitcoin's is the transaction's hex); the decoded one names the txid.
      for (const path of ['', '/decoded', '/receipt']) {
        const read = await api('GET', `/transactions/${txid}${path}`);
        expect(read.status, `${path}: ${read.text}`).toBe(200);
      }
      const decoded = await api('GET', `/transactions/${txid}/decoded`);
      expect(decoded.text.toLowerCase()).toContain(txid.replace(/^0x/, '').toLowerCase());
      const unknown = await api('GET', `/transactions/${driver.unknownTxid}`);
      expect(unknown.status, unknown.text).toBe(422);
      expect(await received(driver, api, to)).toBe(amount);
    },
  },
  {
    name: 'history pages: 50 a page, the next page holds the rest, no row twice',
    async run(context) {
      const { api, driver } = context;
      const one = oneCoin(driver);
      const key = driver.newKey();
      await driver.fundNative(key.address, one);
      const to = await newAddress(context);
      const before = (await api('GET', '/transactions')).body.total as number;
      // Refused by the pre-flight after the node was asked: each is a history row, and none moves coin.
      for (let sent = 0; sent < 51; sent++) {
        const res = await api('POST', '/transactions', {
          json: {
            from: key.address,
            to,
            amount: units(50n * one, driver.native.decimals),
            privatekey: key.privateKey,
          },
        });
        expect(res.status, res.text).toBe(422);
      }
      const first = await api('GET', '/transactions?page=1');
      expect(first.status, first.text).toBe(200);
      expect(first.body.total).toBe(before + 51);
      expect(first.body.per_page).toBe(50);
      expect(first.body.data).toHaveLength(50);
      const last = await api('GET', `/transactions?page=${first.body.last_page}`);
      expect(last.body.data).toHaveLength(first.body.total - 50 * (first.body.last_page - 1));
      const ids = new Set((await wholeHistory(api)).map((row) => row.id));
      expect(ids.size).toBe(first.body.total);
    },
  },
  {
    name: 'idempotent replay: the same key and request answer the first send again, another request 422',
    async run(context) {
      const { api, driver } = context;
      const one = oneCoin(driver);
      const { from, to } = await fundedPair(context, 3n * one);
      const headers = { 'Idempotency-Key': `conformance-${driver.chain}-${Date.now()}` };
      const json = { from, to, amount: units(one / 10n, driver.native.decimals), password: PASSWORD };
      const first = await api('POST', '/transactions', { json, headers });
      const txid = expectTxid(first, driver);
      const again = await api('POST', '/transactions', { json, headers });
      expect(again.status, again.text).toBe(201);
      expect(again.body).toEqual(first.body);
      const other = await api('POST', '/transactions', {
        json: { ...json, amount: units(one / 5n, driver.native.decimals) },
        headers,
      });
      expect(other.status, other.text).toBe(422);
      expect(other.body.message).toBe('This Idempotency-Key was used with another request');
      await driver.settle();
      expect(await received(driver, api, to)).toBe(one / 10n);
      const rows = (await wholeHistory(api)).filter((row) => row.txid === txid);
      expect(rows).toHaveLength(1);
    },
  },
  {
    name: "history: a send's row ends SUCCESS once the chain made it final",
    async run(context) {
      const { api, driver, gw } = context;
      const { txid } = await sendNative(context, oneCoin(driver) / 10n);
      await driver.finalize?.();
      await sendOutcomesOf(gw).runOnce();
      const ended = (await wholeHistory(api)).find((r) => r.txid === txid);
      if (ended === undefined) throw new Error(`${txid} is not in the history`);
      expect(ended.httpStatus).toBe('201');
      expect(JSON.parse(ended.responseJson)).toMatchObject({ status: 'SUCCESS' });
      expect(JSON.parse(ended.responseJson)).not.toHaveProperty('error');
    },
  },
  {
    name: 'webhook delivered for a transfer to a watched address',
    async run(context) {
      const { driver } = context;
      const to = driver.newKey().address;
      await subscribe(context, '/delivered', { to });
      const amount = 3n * oneCoin(driver);
      await driver.fundNative(to, amount);
      const [payload] = await deliveries(context, '/delivered', 1);
      expect(payload).toMatchObject({
        event: 'transfer',
        blockchain: driver.chain,
        network: 'mainnet',
        type: driver.native.webhookType,
        to,
        amount_raw: amount.toString(),
      });
    },
  },
  {
    name: 'one amount rule: 1.5 of the coin and 12.5 of a 6-decimal token read alike in the history and webhooks',
    async run(context) {
      const { api, driver, receiver } = context;
      const { from, to } = await fundedPair(context, 50n * oneCoin(driver));
      await subscribe(context, '/amounts', { to });
      const sends: { path: string; json: Record<string, unknown>; decimals: number }[] = [
        { path: '/transactions', json: { amount: '1.5' }, decimals: driver.native.decimals },
      ];
      const token = driver.token;
      if (token !== undefined) {
        expect(token.decimals).toBe(6);
        await token.fund(from, 25n * 10n ** 6n);
        const json = { amount: '12.5', contractaddress: token.contract };
        sends.push({ path: token.sendPath, json, decimals: token.decimals });
      }
      const expected = new Map<string, string>();
      for (const send of sends) {
        const res = await api('POST', send.path, { json: { from, to, password: PASSWORD, ...send.json } });
        // Every digit of the asset's decimals, however many: 1.5 ETH is 1.500000000000000000.
        const [whole, fraction] = String(send.json['amount']).split('.');
        expected.set(expectTxid(res, driver), `${whole}.${fraction!.padEnd(send.decimals, '0')}`);
      }
      await driver.settle();

      const history = await wholeHistory(api);
      for (const [txid, amount] of expected) {
        expect(history.find((r) => r.txid === txid)?.amount, txid).toBe(amount);
      }
      await deliveries(context, '/amounts', sends.length);
      for (const [txid, amount] of expected) {
        const hit = receiver.received.find((r) => r.path === '/amounts' && r.body.includes(txid));
        // The webhook's amount is a JSON number with the same digits as the history's text.
        expect(hit?.body).toContain(`"amount":${amount},`);
      }
    },
  },
  {
    name: 'webhook reverted when a reorg drops a notified transfer',
    async run(context) {
      const { driver } = context;
      const to = driver.newKey().address;
      await subscribe(context, '/reverted', { to, notify_reverted: true });
      const amount = oneCoin(driver);
      await driver.fundNative(to, amount);
      await deliveries(context, '/reverted', 1);
      if (driver.reorg === undefined)
        throw new Error(`${driver.chain} has no reorg: list this scenario in its gaps`);
      await driver.reorg(1);
      await driver.settle();
      const [sent, reverted] = await deliveries(context, '/reverted', 2);
      expect(sent).toMatchObject({ event: 'transfer', to, amount_raw: amount.toString() });
      expect(reverted).toMatchObject({ event: 'reverted', txid: sent!['txid'], to });
      expect(await received(driver, context.api, to)).toBe(0n);
    },
  },
  {
    name: 'bad address: 422 naming the field',
    async run(context) {
      const { api, driver } = context;
      const from = await newAddress(context, PASSWORD);
      const res = await api('POST', '/transactions', {
        json: { from, to: driver.badAddress, amount: '0.1', password: PASSWORD },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'to' })]);
      expect((await api('GET', `/balances/${driver.badAddress}`)).status).toBe(422);
    },
  },
  {
    name: 'insufficient funds: 422 with the documented message, nothing moves',
    async run(context) {
      const { api, driver } = context;
      const one = oneCoin(driver);
      const pair = await fundedPair(context, 2n * one);
      const res = await postNativeSend(context, pair, 50n * one);
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(driver.insufficientFunds);
      await driver.settle();
      expect(await received(driver, api, pair.to)).toBe(0n);
    },
  },
  {
    name: 'concurrent sends from one address, each a share of its balance: the receiver gets exactly the 201s',
    async run(context) {
      const { api, driver } = context;
      const one = oneCoin(driver);
      const pair = await fundedPair(context, 2n * one);
      // Five sends of 0.8 from 2: two fit with their fees, never three. Each refused one must say so; no
      // 201 may be lost on the way to the chain.
      const share = (8n * one) / 10n;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => postNativeSend(context, pair, share)),
      );
      const sent = results.filter((res) => res.status === 201);
      for (const res of results.filter((r) => r.status !== 201)) {
        expect(res.status, res.text).toBe(422);
        expect(res.body.message).toMatch(driver.insufficientFunds);
      }
      expect(sent.length).toBeGreaterThanOrEqual(1);
      expect(sent.length).toBeLessThanOrEqual(2);
      expect(new Set(sent.map((res) => res.body.data.txid)).size).toBe(sent.length);
      await driver.settle();
      expect(await received(driver, api, pair.to)).toBe(share * BigInt(sent.length));
    },
  },
  {
    name: 'an address with only a token sends it with a sponsor, which spends exactly what its ledger says',
    needsToken: true,
    async run(context) {
      const { api, driver, gw } = context;
      const token = tokenOf(driver);
      const sponsor = await sponsorFor(context);
      const from = await newAddress(context, PASSWORD);
      const to = await newAddress(context);
      const whole = 10n ** BigInt(token.decimals);
      await token.fund(from, 5n * whole);
      const transfer = {
        type: token.webhookType,
        from,
        to,
        contractaddress: token.contract,
        amount: units(2n * whole, token.decimals),
      };
      const estimate = await api('POST', '/paymaster/estimate', { json: transfer });
      expect(estimate.status, estimate.text).toBe(200);
      expect(estimate.body.data.paymaster_fee).toMatch(/^\d+(\.\d+)?$/);
      const sponsorBefore = await driver.nativeBalance(api, sponsor);
      const created = await api('POST', '/paymaster', { json: { ...transfer, password: PASSWORD } });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.status).toBe('pending');
      const job = await jobEnd(context, `/paymaster/${created.body.data.id}`);
      expect(job.status, JSON.stringify(job)).toBe('completed');
      expect(job.txid).toMatch(driver.txid);
      await driver.settle();
      expect(await token.balance(api, to)).toBe(2n * whole);
      expect(await token.balance(api, from)).toBe(3n * whole);
      if (driver.sponsorLeavesNothing) expect(await driver.nativeBalance(api, from)).toBe(0n);
      const ledger = await gw.ctx.store.db
        .selectFrom('sponsor_ledger')
        .select('units')
        .where('job_id', '=', created.body.data.id)
        .execute();
      const spent = ledger.reduce((sum, row) => sum + BigInt(row.units), 0n);
      expect(sponsorBefore - (await driver.nativeBalance(api, sponsor))).toBe(spent);
      const listed = await api('GET', '/paymaster');
      expect(listed.body.data.map((row: { id: string }) => row.id)).toContain(created.body.data.id);
    },
  },
  {
    name: 'a sweep gathers a token from 50 addresses into one treasury, skipping one under min_amount',
    needsToken: true,
    async run(context) {
      const { api, driver, gw } = context;
      const token = tokenOf(driver);
      const sponsor = await sponsorFor(context);
      const whole = 10n ** BigInt(token.decimals);
      const holders = await Promise.all(Array.from({ length: SWEPT }, () => newAddress(context, PASSWORD)));
      const small = await newAddress(context, PASSWORD);
      const treasury = await newAddress(context);
      for (const holder of holders) await token.fund(holder, whole);
      await token.fund(small, whole / 10n);
      await driver.settle();
      const sponsorBefore = await driver.nativeBalance(api, sponsor);
      const started = await api('POST', '/sweeps', {
        json: {
          to: treasury,
          contractaddress: token.contract,
          from: [...holders, small],
          min_amount: units(whole / 2n, token.decimals),
          password: PASSWORD,
        },
      });
      expect(started.status, started.text).toBe(202);
      const sweep = await jobEnd(context, `/sweeps/${started.body.data.id}`);
      const swept: { address: string; status: string }[] = sweep.addresses;
      expect(swept.filter((row) => row.status !== 'completed')).toEqual([]);
      expect(swept.map((row) => row.address).sort()).toEqual([...holders].sort());
      expect(sweep.skipped).toEqual([{ address: small, reason: 'holds less than min_amount' }]);
      await driver.settle();
      expect(await token.balance(api, treasury)).toBe(BigInt(SWEPT) * whole);
      const ledger = await gw.ctx.store.db
        .selectFrom('sponsor_ledger')
        .innerJoin('sponsor_jobs', 'sponsor_jobs.id', 'sponsor_ledger.job_id')
        .select('sponsor_ledger.units')
        .where('sponsor_jobs.sweep_id', '=', started.body.data.id)
        .execute();
      const spent = ledger.reduce((sum, row) => sum + BigInt(row.units), 0n);
      expect(sponsorBefore - (await driver.nativeBalance(api, sponsor))).toBe(spent);
    },
  },
  {
    name: 'wrong password: 401 on export and on password change',
    async run(context) {
      const { api, driver } = context;
      const address = await newAddress(context, PASSWORD);
      const exported = await driver.exportKey(api, address, 'not the password');
      expect(exported.response.status).toBe(401);
      expect(exported.response.body.message).toBe('Wrong password provided');
      const change = await api('PUT', `/addresses/${address}`, {
        json: { old_password: 'not the password', new_password: 'another password' },
      });
      expect(change.status).toBe(401);
      expect(change.body.message).toBe('Wrong password provided');
    },
  },
  {
    name: "wrong password on a send: the family's answer (401; Tron 422), nothing moves",
    async run(context) {
      const { api, driver } = context;
      const one = oneCoin(driver);
      const pair = await fundedPair(context, one);
      const res = await postNativeSend(context, pair, one / 10n, 'not the password');
      expect(res.status, res.text).toBe(driver.wrongPasswordSend.status);
      expect(res.body.message).toMatch(driver.wrongPasswordSend.message);
      await driver.settle();
      expect(await received(driver, api, pair.to)).toBe(0n);
    },
  },
  {
    name: 'unknown token contract: refused on a read and on a send',
    needsToken: true,
    async run(context) {
      const { api, driver } = context;
      const token = tokenOf(driver);
      const unknown = token.noContract();
      const read = await api('GET', token.infoPath(unknown));
      expect(read.status, read.text).toBe(400);
      const { from, to } = await fundedPair(context, 10n * oneCoin(driver));
      const res = await api('POST', token.sendPath, {
        json: { from, to, contractaddress: unknown, amount: '1', password: PASSWORD },
      });
      expect(res.status, res.text).toBe(token.unknownContractSend.status);
      expect(res.body.message).toMatch(token.unknownContractSend.message);
    },
  },
];

/** Runs every scenario against one gateway whose mainnet for `driver.chain` is the driver's devnet. */
/** Chaingateway's plans, the scenarios' own (enterprise) allowed sponsored fees on the chain. */
function sponsoredPlans(driver: ConformanceDriver): string {
  const allowance = { [driver.chain]: '1000000' };
  return JSON.stringify(
    DEFAULT_PLANS.map((plan) => (plan.name === 'enterprise' ? { ...plan, sponsored: allowance } : plan)),
  );
}

export function runConformance(driver: ConformanceDriver): void {
  describe(`${driver.chain} conformance`, () => {
    let gw: TestGateway;
    let roles: BackgroundRoles;
    let receiver: WebhookReceiver;
    let token: string;
    const context = (): ScenarioContext => ({
      driver,
      gw,
      receiver,
      api: (method, path, options = {}) =>
        gw.request(method, `/api/v2/${driver.chain}${path}`, { token, ...options }),
    });

    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      ({ gw, roles, token } = await startWatchingGateway({
        ...driver.gatewayEnv,
        PLANS: sponsoredPlans(driver),
      }));
    }, 60_000);

    afterAll(async () => {
      await roles?.stop();
      await gw?.close();
      await receiver?.close();
    });

    for (const scenario of SCENARIOS) {
      const gap = driver.gaps[scenario.name];
      if (scenario.needsToken && driver.token === undefined)
        it.skip(`${scenario.name} (not applicable: ${driver.chain} has no tokens)`, () => undefined);
      else if (gap === undefined) it(scenario.name, () => scenario.run(context()), SCENARIO_TIMEOUT_MS);
      else it.skip(`${scenario.name} (not yet: ${gap})`, () => undefined);
    }
  });
}
