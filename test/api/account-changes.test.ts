// Identities are kept in memory for a moment (identity-cache.ts): a change to who may call must still reach
// every instance within a second. Two gateways on one Postgres database: a change made through one is
// refused by the other, whose cache already held the identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, startGateway, type TestGateway, testDatabase } from '../helpers/gateway.ts';

/** The guarantee: a revocation or a plan change is effective on every instance within this. */
const EVERY_INSTANCE_WITHIN_MS = 1_000;

/** Polls `path` on `gw` with `token` until it answers `status`; the milliseconds that took. */
async function msUntil(gw: TestGateway, token: string, path: string, status: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await gw.request('GET', path, { token });
    const elapsed = performance.now() - started;
    if (res.status === status) return elapsed;
    if (elapsed > 5_000) throw new Error(`still ${res.status} after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(testDatabase() === 'postgres')('account changes across instances', () => {
  const database = freshDatabase('postgres');
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    const env = { PRICE_PROVIDERS: 'local' };
    a = await startGateway({ database, env });
    b = await startGateway({ database, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database.drop();
  });

  it('a token revoked on one instance is refused by the other within a second', async () => {
    const { token } = await a.userToken();
    // B has read and kept the token's identity.
    expect((await b.request('GET', '/api/account', { token })).status).toBe(200);
    expect(await a.ctx.users.revokeToken(token.slice(0, 16))).toBe(true);
    expect(await msUntil(b, token, '/api/account', 401)).toBeLessThan(EVERY_INSTANCE_WITHIN_MS);
  });

  it('a plan that lapses on one instance answers 402 on the other within a second', async () => {
    const { token, userId } = await a.userToken();
    expect((await b.request('GET', '/api/v2/prices/ETH', { token })).status).toBe(200);
    const plan = (await a.ctx.accounts.plan(userId)).name;
    await a.ctx.users.setPlan(userId, { plan, endsAt: '2020-01-01', status: 'cancelled' });
    expect(await msUntil(b, token, '/api/v2/prices/ETH', 402)).toBeLessThan(EVERY_INSTANCE_WITHIN_MS);
  });
});
