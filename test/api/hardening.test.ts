import { mkdtempSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronSandboxDevnet } from '../../src/chains/tron/sandbox-devnet.ts';
import { FaucetDirectory } from '../../src/services/faucets.ts';
import { startGateway, type TestGateway, testDatabase } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/processes.ts';

let gw: TestGateway;
let token: string;
let userId: string;

beforeAll(async () => {
  gw = await startGateway({
    env: {
      TRON_MAINNET_URLS: 'http://127.0.0.1:9',
      TRON_TESTNET_URLS: 'http://127.0.0.1:9',
      NODE_RETRIES: '0',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
    },
  });
  ({ token, userId } = await gw.userToken());
});
afterAll(() => gw?.close());

/** Writes bytes as they are and reads the whole answer (status line, headers, body). */
function rawExchange(bytes: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(gw.baseUrl);
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed socket may be dropped before the answer is written.
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0),
        body: response.slice(response.indexOf('\r\n\r\n') + 4),
      }),
    );
  });
}

function multipartWithFields(count: number): { body: string; type: string } {
  const boundary = 'xxBOUNDARYxx';
  let body = '';
  for (let i = 0; i < count; i++) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nvalue ${i}\r\n`;
  }
  return { body: `${body}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

async function healthLatencyMs(): Promise<number> {
  const started = performance.now();
  const res = await gw.request('GET', '/healthz');
  expect(res.status).toBe(200);
  return performance.now() - started;
}

describe('bodies are bounded and parsed only for a caller with a valid token', () => {
  it('answers many-field multipart bodies at once and stays responsive', async () => {
    const { body, type } = multipartWithFields(250);
    const logsBefore = gw.logLines.length;
    const anonymous = [
      gw.request('POST', '/nowhere', { raw: body, headers: { 'content-type': type } }),
      gw.request('POST', '/api/v2/tron/transactions', { raw: body, headers: { 'content-type': type } }),
      gw.request('POST', '/api/v2/tron/transactions', {
        token,
        raw: body,
        headers: { 'content-type': type },
      }),
    ];
    const [unknown, unauthenticated, tooMany] = await Promise.all(anonymous);
    expect(unknown!.status).toBe(404);
    expect(unauthenticated!.status).toBe(401);
    expect(tooMany!.status).toBe(413);
    expect(tooMany!.body).toMatchObject({ status: 413, ok: false, errors: [] });
    expect(await healthLatencyMs()).toBeLessThan(100);
    // Every log line stays small whatever the request carried.
    for (const line of gw.logLines.slice(logsBefore)) expect(line.length).toBeLessThan(8_192);
  });

  it('limits urlencoded fields and needs a length for multipart', async () => {
    const form = Array.from({ length: 100 }, (_, i) => `f${i}=${i}`).join('&');
    const res = await gw.request('POST', '/api/v2/tron/transactions', {
      token,
      raw: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('A form body may carry at most 64 fields');
    const chunked = await rawExchange(
      `POST /api/v2/tron/transactions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
        '5\r\n--b--\r\n0\r\n\r\n',
    );
    expect(chunked.status).toBe(411);
    expect(JSON.parse(chunked.body)).toMatchObject({ status: 411, ok: false });
  });

  it('writes one bounded log line per request: method, route and status, never the query', async () => {
    const before = gw.logLines.length;
    await gw.request('GET', '/healthz?probe=1', { headers: { 'x-request-id': 'one-line-per-request' } });
    // The line is written once the answer has gone out, which can be just after the client has it.
    const ofThisRequest = () =>
      gw.logLines.map((line) => JSON.parse(line)).filter((l) => l.requestId === 'one-line-per-request');
    await waitFor(() => (ofThisRequest().some((l) => l.msg === 'request') ? true : undefined), 5_000);
    expect(ofThisRequest()).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', route: '/healthz', status: 200 }),
    ]);
    expect(gw.logLines.slice(before).join('\n')).not.toContain('probe=1');
  });
});

describe('framework errors are answered in the envelope and echo nothing', () => {
  it('answers a malformed percent-encoding with 400', async () => {
    const res = await rawExchange(
      'GET /api/v2/tron/blocks/%zzsecretpath HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      status: 400,
      ok: false,
      message: 'Malformed URL: invalid percent-encoding',
      errors: [],
    });
  });

  it('answers an over-long path segment with 414', async () => {
    const res = await gw.request('GET', `/api/v2/tron/blocks/${'9'.repeat(300)}`, { token });
    expect(res.status).toBe(414);
    expect(res.body).toMatchObject({ status: 414, ok: false, message: 'A path segment is too long' });
    expect(res.text).not.toContain('9'.repeat(300));
  });

  it('answers oversized headers with 431 and broken framing with 400', async () => {
    const big = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body)).toMatchObject({
      status: 431,
      ok: false,
      message: 'Request headers are too large',
    });
    const broken = await rawExchange('GARBAGE\r\n\r\n');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body)).toMatchObject({ status: 400, ok: false, message: 'Malformed request' });
  });

  it('never quotes a content type back', async () => {
    const res = await gw.request('POST', '/api/v2/tron/transactions', {
      token,
      raw: 'x',
      headers: { 'content-type': 'application/evil-<script>' },
    });
    expect(res.status).toBe(415);
    expect(res.text).not.toContain('evil');
  });
});

describe('malformed input is a 4xx, never a 500', () => {
  it('refuses a broadcast whose TransferContract amount is not a number', async () => {
    for (const amount of [null, 'null', 1.5, -1, {}]) {
      const res = await gw.request('POST', '/api/v2/tron/transactions/broadcast', {
        token,
        json: {
          txID: 'a'.repeat(64),
          raw_data: { contract: [{ type: 'TransferContract', parameter: { value: { amount } } }] },
          raw_data_hex: '0a02',
          signature: ['b'.repeat(130)],
        },
      });
      expect(res.status, JSON.stringify(amount)).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'raw_data', message: 'The TransferContract amount must be a whole number of sun.' },
      ]);
    }
  });

  it(`refuses a NUL character in any field (${testDatabase()})`, async () => {
    const url = 'http://example.com/\u0000hook';
    for (const method of ['POST', 'PUT'] as const) {
      const path =
        method === 'POST'
          ? '/api/v2/tron/webhooks'
          : '/api/v2/tron/webhooks/00000000-0000-0000-0000-000000000000';
      const res = await gw.request(method, path, {
        token,
        json: { url, to: 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN' },
      });
      expect(res.status, method).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'url', message: 'The url field must not contain NUL characters.' },
      ]);
    }
    const chainless = await gw.request('POST', '/api/v2/webhooks', { token, json: { url, to: 'T' } });
    expect(chainless.status).toBe(422);
  });
});

describe('strict input', () => {
  const webhook = { url: 'http://127.0.0.1:9/hook', to: 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN' };

  it('refuses numbers written in other bases or forms', async () => {
    for (const confirmations of ['0x10', '1e1', ' 1', true]) {
      const res = await gw.request('POST', '/api/v2/tron/webhooks', {
        token,
        json: { ...webhook, confirmations },
      });
      expect(res.status, String(confirmations)).toBe(422);
      expect(res.body.errors[0].field).toBe('confirmations');
    }
    const page = await gw.request('GET', '/api/v2/tron/transactions?page=0x10', { token });
    expect(page.status).toBe(422);
    expect(page.body.errors).toEqual([{ field: 'page', message: expect.any(String) }]);
    expect((await gw.request('GET', '/api/v2/tron/transactions?page=2', { token })).status).toBe(200);
  });

  it('refuses an array where one value is expected', async () => {
    const res = await gw.request('POST', '/api/v2/tron/webhooks', {
      token,
      json: { ...webhook, to: [webhook.to] },
    });
    expect(res.status).toBe(422);
    const page = await gw.request('GET', '/api/v2/tron/transactions?page=1&page=2', { token });
    expect(page.status).toBe(422);
  });

  it('refuses a key given twice, in JSON and in forms', async () => {
    const json = await gw.request('POST', '/api/v2/tron/webhooks', {
      token,
      raw: `{"url":"${webhook.url}","to":"${webhook.to}","to":"TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(422);
    expect(json.body.errors).toEqual([{ field: 'to', message: 'The to field is given more than once.' }]);
    const form = await gw.request('POST', '/api/v2/tron/webhooks', {
      token,
      raw: `url=${encodeURIComponent(webhook.url)}&to=${webhook.to}&to=TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(422);
    expect(form.body.errors[0].field).toBe('to');
  });

  it('still converts plain form text to numbers and booleans', async () => {
    const res = await gw.request('POST', '/api/v2/tron/webhooks', {
      token,
      form: { ...webhook, confirmations: '3', notify_reverted: 'true' },
    });
    expect(res.status, res.text).toBe(201);
  });
});

describe('plan lifecycle', () => {
  const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();

  it('answers 402 past the end date and grace, serves the account page, and renewing restores access', async () => {
    const { token: mine, userId: me } = await gw.userToken(undefined, 'pro');
    await gw.ctx.users.setPlan(me, { plan: 'pro', endsAt: days(-1) });
    // Within the grace period (3 days by default) the plan still works.
    expect((await gw.request('GET', '/api/v2/tron/addresses', { token: mine })).status).toBe(200);
    await gw.ctx.users.setPlan(me, { plan: 'pro', endsAt: days(-4) });
    const refused = await gw.request('POST', '/api/v2/tron/webhooks', { token: mine, json: webhookBody() });
    expect(refused.status).toBe(402);
    expect(refused.body.message).toMatch(
      /^Your pro plan expired on \d{4}-\d\d-\d\d \(the grace period ended \d{4}-\d\d-\d\d\)\. Renew it/,
    );
    const account = await gw.request('GET', '/api/account', { token: mine });
    expect(account.status).toBe(200);
    expect(account.body.data).toMatchObject({ status: 'expired', is_subscribed: 'false' });
    await gw.ctx.users.setPlan(me, { plan: 'pro', endsAt: days(30) });
    expect(
      (await gw.request('POST', '/api/v2/tron/webhooks', { token: mine, json: webhookBody() })).status,
    ).toBe(201);
  });

  it('ends a cancelled plan at its end date, or at once without one', async () => {
    const { token: mine, userId: me } = await gw.userToken(undefined, 'pro');
    await gw.ctx.users.setPlan(me, { plan: 'pro', status: 'cancelled', endsAt: days(2) });
    expect((await gw.request('GET', '/api/v2/tron/addresses', { token: mine })).status).toBe(200);
    await gw.ctx.users.setPlan(me, { plan: 'pro', status: 'cancelled', endsAt: null });
    const refused = await gw.request('GET', '/api/v2/tron/addresses', { token: mine });
    expect(refused.status).toBe(402);
    expect(refused.body.message).toMatch(/^Your pro plan was cancelled on \d{4}-\d\d-\d\d\./);
  });

  it('keeps the request unit of a 401 and a 429; gives back other failures', async () => {
    const before = (await gw.ctx.quotas.remaining(userId)).quotas.requests;
    await gw.request('GET', '/api/v2/tron/webhooks/not-a-uuid', { token });
    // The unit comes back once the answer has gone out, which can be just after the client has it.
    const remaining = async () => (await gw.ctx.quotas.remaining(userId)).quotas.requests;
    await waitFor(async () => ((await remaining()) === before ? true : undefined), 5_000);
  });
});

function webhookBody() {
  return { url: 'http://127.0.0.1:9/hook', to: 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN' };
}

describe('files at rest', () => {
  it.runIf(testDatabase() === 'sqlite')(
    'creates the database, its WAL and the folder for the owner only',
    () => {
      const dir = gw.database.dataDir;
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const name of ['switchyard.db', 'switchyard.db-wal', 'switchyard.db-shm']) {
        expect(statSync(path.join(dir, name)).mode & 0o777, name).toBe(0o600);
      }
    },
  );
});

describe('sandbox faucet', () => {
  it('refuses more than it holds with 422 saying the most it can give', async () => {
    const chainDir = mkdtempSync(path.join(os.tmpdir(), 'faucet-'));
    const devnet = await startTronSandboxDevnet('mainnet', chainDir, {
      evmBlockTime: 0,
      saveIntervalMs: 0,
    });
    const faucets = new FaucetDirectory();
    faucets.add('tron', 'mainnet', devnet.faucet);
    const sandbox = await startGateway({
      faucets,
      env: { TRON_MAINNET_URLS: devnet.endpoints[0]!.url, TRON_TESTNET_URLS: 'http://127.0.0.1:9' },
    });
    try {
      const { token: mine } = await sandbox.userToken();
      const address = 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN';
      const res = await sandbox.request('POST', '/api/v2/tron/faucet', {
        token: mine,
        json: { address, amount: '1000000000000000' },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        {
          field: 'amount',
          message: expect.stringMatching(/^The faucet can give at most [\d.]+ TRX per request\.$/),
        },
      ]);
      const trc10 = Object.values(devnet.tokens['trc10'] ?? {})[0];
      const tooMuchTrc10 = await sandbox.request('POST', '/api/v2/tron/faucet', {
        token: mine,
        json: { address, amount: '1000000000000000', contractaddress: trc10 },
      });
      expect(tooMuchTrc10.status).toBe(422);
      expect(
        (
          await sandbox.request('POST', '/api/v2/tron/faucet', {
            token: mine,
            json: { address, amount: '5' },
          })
        ).status,
      ).toBe(200);
    } finally {
      await sandbox.close();
      await devnet.stop();
      rmSync(chainDir, { recursive: true, force: true });
    }
  });
});
