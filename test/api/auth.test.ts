import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

const UNAUTHENTICATED = { status: 401, ok: false, message: 'Unauthenticated.', errors: [] };

describe('token authentication', () => {
  it('accepts the token with and without the Bearer scheme', async () => {
    const { token } = await gw.userToken();
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, token]) {
      const res = await gw.request('GET', '/api/account', { headers: { authorization } });
      expect(res.status, authorization.slice(0, 7)).toBe(200);
    }
  });

  it('answers a missing, malformed or unknown token with 401 Unauthenticated.', async () => {
    const { token } = await gw.userToken();
    const forged = `${token.slice(0, -4)}AAAA`;
    const otherId = token.replace(/^swy_[0-9a-f]{12}/, 'swy_000000000000');
    const attempts: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${forged}` },
      { authorization: `Bearer ${otherId}` },
      { authorization: 'Bearer swy_not_a_token' },
    ];
    for (const headers of attempts) {
      const res = await gw.request('GET', '/api/account', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    }
  });

  it('creates tokens with 256 bits of secret and a readable prefix', async () => {
    const { token } = await gw.userToken();
    expect(token).toMatch(/^swy_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const { token: second } = await gw.userToken();
    expect(second).not.toBe(token);
  });

  it('stops accepting a revoked token at once', async () => {
    const { token } = await gw.userToken();
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(200);
    expect(await gw.ctx.users.revokeToken(token.slice(0, 16))).toBe(true);
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(401);
  });

  it('keeps only a hash of the token in the database', async () => {
    const { token } = await gw.userToken();
    await gw.request('GET', '/api/account', { token });
    const secret = token.slice(17);
    const rows = await gw.ctx.store.db.selectFrom('api_tokens').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(token);
    // The whole database, every table, as text: the secret appears nowhere.
    const tables = ['users', 'plans', 'subscriptions', 'api_tokens', 'quota_usage'];
    for (const table of tables) {
      const all = await sql`select * from ${sql.table(table)}`.execute(gw.ctx.store.db);
      expect(JSON.stringify(all.rows)).not.toContain(secret);
    }
  });

  it('never writes a token, password or private key to the logs', async () => {
    const { token } = await gw.userToken();
    const before = gw.logLines.length;
    await gw.request('GET', '/api/account', { token });
    await gw.request('POST', '/api/account', {
      token,
      json: { password: 'hunter2-secret', privatekey: 'a'.repeat(64) },
    });
    await gw.request('GET', `/api/nothing?token=${token}`, { headers: { authorization: token } });
    gw.ctx.logger.info(
      { body: { password: 'hunter2-secret', nested: { privateKey: 'b'.repeat(64) } } },
      `tok ${token}`,
    );
    const written = gw.logLines.slice(before).join('\n');
    expect(written.length).toBeGreaterThan(0);
    expect(written).not.toContain(token.slice(17));
    expect(written).not.toContain('hunter2-secret');
    expect(written).not.toContain('b'.repeat(64));
    expect(written).toContain('[redacted]');
  });
});

describe('public routes', () => {
  it('need no token', async () => {
    for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
      expect((await gw.request('GET', url)).status, url).toBe(200);
    }
  });
});
