// The conformance suite: one table of scenarios, run through the real HTTP API of a real gateway for
// every chain a family serves. Per chain only a driver (driver.ts) differs. A scenario a family cannot
// pass yet is named in its driver's `gaps` with the reason, and shows as skipped with that reason.
import { formatUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { type ApiResponse, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import type { ChainApi, ConformanceDriver, TokenDriver } from './driver.ts';

const PASSWORD = 'correct horse battery';
/** A scenario seals and unseals keys (scrypt, N = 2^17) several times: slow on a busy machine. */
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

/** A password address funded with `funds` base units of the native coin. */
async function fundedAddress(context: ScenarioContext, funds: bigint): Promise<string> {
  const address = await newAddress(context, PASSWORD);
  await context.driver.fundNative(address, funds);
  return address;
}

/** One native send by the gateway with a stored key; resolves once it landed, to its txid. */
async function sendNative(context: ScenarioContext, amount: bigint): Promise<{ txid: string; to: string }> {
  const { api, driver } = context;
  const from = await fundedAddress(context, 10n * amount + 10n ** BigInt(driver.native.decimals + 1));
  const to = await newAddress(context);
  const txid = expectTxid(
    await api('POST', '/transactions', {
      json: { from, to, amount: units(amount, driver.native.decimals), password: PASSWORD },
    }),
    driver,
  );
  await driver.settle();
  return { txid, to };
}

/** Built by the gateway, signed with the client library, broadcast by the gateway; resolves once landed. */
async function buildSignBroadcast(context: ScenarioContext, amount: bigint) {
  const { api, driver } = context;
  const key = driver.newKey();
  await driver.fundNative(key.address, 10n * amount + 10n ** BigInt(driver.native.decimals + 1));
  const to = await newAddress(context);
  const built = await api('POST', '/transactions/build', {
    json: { from: key.address, to, amount: units(amount, driver.native.decimals) },
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
  {
    name: 'native send with a stored key: the receiver gets the amount',
    async run(context) {
      const amount = 10n ** BigInt(context.driver.native.decimals) / 4n;
      const { to } = await sendNative(context, amount);
      expect(await context.driver.nativeBalance(context.api, to)).toBe(amount);
    },
  },
  {
    name: 'token send with a stored key: the receiver gets the tokens',
    needsToken: true,
    async run(context) {
      const { api, driver } = context;
      const token = tokenOf(driver);
      const amount = 25n * 10n ** BigInt(token.decimals - 1);
      const from = await fundedAddress(context, 50n * 10n ** BigInt(driver.native.decimals));
      await token.fund(from, 2n * amount);
      const to = await newAddress(context);
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
  {
    name: 'build, sign outside the gateway with the client library, broadcast',
    async run(context) {
      const amount = 10n ** BigInt(context.driver.native.decimals) / 2n;
      const { to } = await buildSignBroadcast(context, amount);
      expect(await context.driver.nativeBalance(context.api, to)).toBe(amount);
    },
  },
  {
    name: 'history lists both a send and an outside-signed broadcast',
    async run(context) {
      const amount = 10n ** BigInt(context.driver.native.decimals) / 10n;
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
    name: 'webhook delivered for a transfer to a watched address',
    async run(context) {
      const { driver } = context;
      const to = driver.newKey().address;
      await subscribe(context, '/delivered', { to });
      const amount = 3n * 10n ** BigInt(driver.native.decimals);
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
    name: 'webhook reverted when a reorg drops a notified transfer',
    async run(context) {
      const { driver } = context;
      const to = driver.newKey().address;
      await subscribe(context, '/reverted', { to, notify_reverted: true });
      const amount = 10n ** BigInt(driver.native.decimals);
      await driver.fundNative(to, amount);
      await deliveries(context, '/reverted', 1);
      if (driver.reorg === undefined)
        throw new Error(`${driver.chain} has no reorg: list this scenario in its gaps`);
      await driver.reorg(1);
      await driver.settle();
      const [sent, reverted] = await deliveries(context, '/reverted', 2);
      expect(sent).toMatchObject({ event: 'transfer', to, amount_raw: amount.toString() });
      expect(reverted).toMatchObject({ event: 'reverted', txid: sent!['txid'], to });
      expect(await driver.nativeBalance(context.api, to)).toBe(0n);
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
      const one = 10n ** BigInt(driver.native.decimals);
      const from = await fundedAddress(context, 2n * one);
      const to = await newAddress(context);
      const res = await api('POST', '/transactions', {
        json: { from, to, amount: units(50n * one, driver.native.decimals), password: PASSWORD },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toMatch(driver.insufficientFunds);
      await driver.settle();
      expect(await driver.nativeBalance(api, to)).toBe(0n);
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
    name: 'wrong password on a send: 401, nothing moves',
    async run(context) {
      const { api, driver } = context;
      const one = 10n ** BigInt(driver.native.decimals);
      const from = await fundedAddress(context, one);
      const to = await newAddress(context);
      const res = await api('POST', '/transactions', {
        json: { from, to, amount: units(one / 10n, driver.native.decimals), password: 'not the password' },
      });
      expect(res.status, res.text).toBe(401);
      expect(res.body.message).toBe('Wrong password provided');
      await driver.settle();
      expect(await driver.nativeBalance(api, to)).toBe(0n);
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
      const from = await fundedAddress(context, 10n ** BigInt(driver.native.decimals + 1));
      const to = await newAddress(context);
      const res = await api('POST', token.sendPath, {
        json: { from, to, contractaddress: unknown, amount: '1', password: PASSWORD },
      });
      expect(res.status, res.text).toBe(token.unknownContractSend.status);
      expect(res.body.message).toMatch(token.unknownContractSend.message);
    },
  },
];

/** Runs every scenario against one gateway whose mainnet for `driver.chain` is the driver's devnet. */
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
      gw = await startGateway({
        env: {
          ...driver.gatewayEnv,
          WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
          NODE_RETRIES: '1',
          LOG_LEVEL: 'warn',
        },
      });
      roles = startBackgroundRoles(gw.ctx, { pollMs: 50 });
      ({ token } = await gw.userToken(undefined, 'enterprise'));
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
