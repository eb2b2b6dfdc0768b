import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiResponse,
  freshDatabase,
  startGateway,
  type TestDatabase,
  type TestGateway,
} from '../helpers/gateway.ts';
import { client, FULL_KDF, NO_NODES, PASSWORD, SLOW, WRONG } from '../helpers/wallet-passwords.ts';

/**
 * Wrong wallet passwords through the real HTTP API: lockouts per address and per user (429 with
 * Retry-After, answered without running scrypt), kept in the database across a restart, doubling up to
 * a cap, reset by a right password (one user's flood of key work beside another's export:
 * kdf-fairness.test.ts).
 * That a locked answer runs no scrypt is told by its time, against the real scrypt (N=2^17); the counting
 * of lockouts is not about the derivation and runs on the test gateway's cheap one (a sealed key's form
 * is the same).
 */

/** A clock the tests move forward to end lockouts without waiting. */
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const advance = (seconds: number) => {
  offsetMs += seconds * 1000;
};

function expectLockout(res: ApiResponse, scope: 'for this address' | 'on this account', seconds: number) {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get('retry-after')).toBe(String(seconds));
  expect(res.body).toMatchObject({
    status: 429,
    ok: false,
    message: `Too many wrong passwords ${scope}; try again in ${seconds} seconds`,
  });
}

// Small limits; the window is short so that the per-user count of one test's earlier failures is gone once
// the clock has moved past a lockout.
const LIMITS = {
  ...NO_NODES,
  PASSWORD_MAX_FAILURES_PER_ADDRESS: '3',
  PASSWORD_MAX_FAILURES_PER_USER: '6',
  PASSWORD_FAILURE_WINDOW_SECONDS: '60',
  PASSWORD_LOCKOUT_SECONDS: '60',
  PASSWORD_LOCKOUT_MAX_SECONDS: '150',
};

describe('a locked address answers without a key derivation', { timeout: SLOW }, () => {
  // The real scrypt: a locked answer is told from a derivation by its time.
  let gw: TestGateway;
  const current = () => gw;

  beforeAll(async () => {
    gw = await startGateway({ env: { ...LIMITS, ...FULL_KDF }, now });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('locks an address after N wrong passwords: 429 with Retry-After, no scrypt run, the right password too', async () => {
    const { token } = await gw.userToken();
    const api = client(current, token);
    const address = await api.newTronAddress();
    const wrongTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.exportTron(address, WRONG);
      expect(res.status, res.text).toBe(401);
      expect(res.body.message).toBe('Wrong password provided');
      wrongTimes.push(res.ms);
    }
    const scryptMs = Math.min(...wrongTimes);

    const locked = await api.exportTron(address, WRONG);
    expectLockout(locked, 'for this address', 60);
    // Answered from the counters alone: a small fraction of one key derivation.
    expect(locked.ms).toBeLessThan(scryptMs / 4);

    const right = await api.exportTron(address, PASSWORD);
    expectLockout(right, 'for this address', 60);
    expect(right.ms).toBeLessThan(scryptMs / 4);
    const change = await api.tron('PUT', `/addresses/${address}`, {
      json: { old_password: PASSWORD, new_password: 'another good password' },
    });
    expectLockout(change, 'for this address', 60);

    // Another address of the same user is not locked.
    const other = await api.newTronAddress();
    expect((await api.exportTron(other, PASSWORD)).status).toBe(200);
  });
});

describe('wrong-password lockouts', { timeout: SLOW }, () => {
  const env = LIMITS;
  let database: TestDatabase;
  let gw: TestGateway;
  const current = () => gw;

  beforeAll(async () => {
    database = freshDatabase();
    gw = await startGateway({ env, now, database });
  });
  afterAll(async () => {
    await gw?.close();
    await database?.drop();
  });

  it('throttles sends, private key and keystore exports alike (EVM)', async () => {
    const { token } = await gw.userToken();
    const api = client(current, token);
    const created = await api.ethereum('POST', '/addresses', { json: { password: PASSWORD } });
    expect(created.status, created.text).toBe(201);
    const from = created.body.data[0].address as string;
    const to = '0x000000000000000000000000000000000000dEaD';
    const send = (password: string) =>
      api.ethereum('POST', '/transactions', { json: { from, to, amount: '0.001', password } });
    for (let i = 0; i < 3; i++) expect((await send(WRONG)).status).toBe(401);
    expectLockout(await send(PASSWORD), 'for this address', 60);
    expectLockout(
      await api.ethereum('POST', `/addresses/export/${from}`, { json: { password: PASSWORD } }),
      'for this address',
      60,
    );
    expectLockout(
      await api.ethereum('POST', `/addresses/export/${from}/privatekey`, { json: { password: PASSWORD } }),
      'for this address',
      60,
    );
  });

  it("counts Tron's 422 wrong-password answers on sends and staking toward the lockout, keeping their request units", async () => {
    const { token, userId } = await gw.userToken();
    const api = client(current, token);
    const from = await api.newTronAddress();
    const to = 'TTd9qHyjqiUkfTxe3gotbuTMpjU8LEbpkN';
    const requestsLeft = async () => (await gw.ctx.quotas.remaining(userId)).quotas.requests;
    const before = await requestsLeft();
    const attempts = [
      () => api.tron('POST', '/transactions', { json: { from, to, amount: 1, password: WRONG } }),
      () =>
        api.tron('POST', '/transactions/trc20', {
          json: {
            from,
            to,
            contractaddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
            amount: 1,
            password: WRONG,
          },
        }),
      () =>
        api.tron('POST', '/freeze', {
          json: { address: from, amount: 1, resource: 'ENERGY', password: WRONG },
        }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status, res.text).toBe(422);
      expect(res.body.message).toBe(
        `Validate signature error: the password does not open the key of ${from}`,
      );
    }
    expectLockout(
      await api.tron('POST', '/transactions', { json: { from, to, amount: 1, password: PASSWORD } }),
      'for this address',
      60,
    );
    expectLockout(await api.exportTron(from, PASSWORD), 'for this address', 60);
    // Each guess kept its request unit, as a 401 does (and the two 429s theirs).
    expect(await requestsLeft()).toBe(Number(before) - 5);
  });

  it('keeps a lockout across a restart on the same database', async () => {
    const { token } = await gw.userToken();
    const api = client(current, token);
    const address = await api.newTronAddress();
    for (let i = 0; i < 3; i++) expect((await api.exportTron(address, WRONG)).status).toBe(401);

    await gw.close();
    gw = await startGateway({ env, now, database });

    const res = await api.exportTron(address, PASSWORD);
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    advance(61);
    const after = await api.exportTron(address, PASSWORD);
    expect(after.status, after.text).toBe(200);
  });

  it('doubles each lockout in a row up to the cap; a right password starts the address afresh', async () => {
    const { token } = await gw.userToken();
    const api = client(current, token);
    const address = await api.newTronAddress();
    const failTimes = async (count: number) => {
      for (let i = 0; i < count; i++) expect((await api.exportTron(address, WRONG)).status).toBe(401);
    };

    await failTimes(3);
    expectLockout(await api.exportTron(address, WRONG), 'for this address', 60);
    advance(61);
    await failTimes(3);
    expectLockout(await api.exportTron(address, WRONG), 'for this address', 120);
    advance(121);
    await failTimes(3);
    expectLockout(await api.exportTron(address, WRONG), 'for this address', 150);
    advance(151);

    expect((await api.exportTron(address, PASSWORD)).status).toBe(200);
    await failTimes(2);
    expect((await api.exportTron(address, PASSWORD)).status).toBe(200);
    // Four wrong ones since the lockout, but the right one in between reset the count.
    await failTimes(2);
    // The third in a row locks again, for the first lockout's length: the doubling was forgotten too.
    await failTimes(1);
    expectLockout(await api.exportTron(address, PASSWORD), 'for this address', 60);
    advance(61);
  });

  it('locks all of a user’s addresses after N wrong passwords spread over several, and no one else', async () => {
    const { token } = await gw.userToken();
    const api = client(current, token);
    const [a, b, c] = [await api.newTronAddress(), await api.newTronAddress(), await api.newTronAddress()];
    // Two per address stays under the per-address limit (3); the sixth in all reaches the user's (6).
    for (const address of [a, b, c]) {
      for (let i = 0; i < 2; i++) expect((await api.exportTron(address, WRONG)).status).toBe(401);
    }

    const res = await api.exportTron(c, PASSWORD);
    expectLockout(res, 'on this account', 60);

    const { token: otherToken } = await gw.userToken();
    const other = client(current, otherToken);
    expect((await other.exportTron(await other.newTronAddress(), PASSWORD)).status).toBe(200);
    advance(61);
    expect((await api.exportTron(c, PASSWORD)).status).toBe(200);
  });
});
