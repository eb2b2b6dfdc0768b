import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { dereferenced } from '../helpers/openapi-document.ts';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const quotas = { webhooks: 1, addresses: 1, requests: 100, transactions: 1 };
const PLANS = [
  // A budget that does not come back within the test: the refusal is certain however slow the machine.
  { name: 'strict', period: 'month', quotas, rate: { requests: 3, seconds: 3600 } },
  // A budget that comes back within a second.
  { name: 'quick', period: 'month', quotas, rate: { requests: 2, seconds: 1 } },
  { name: 'free', period: 'month', quotas, rate: null },
];
const env = { PLANS: JSON.stringify(PLANS), DEFAULT_PLAN: 'strict' };

const account = (gw: TestGateway, token: string) => gw.request('GET', '/api/account', { token });

function rateHeaders(res: ApiResponse) {
  return {
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

async function refusals(gw: TestGateway, plan: string): Promise<number> {
  const metric = await gw.ctx.metrics.getSingleMetric('switchyard_rate_limited_requests_total')?.get();
  return metric?.values.find((v) => v.labels['plan'] === plan)?.value ?? 0;
}

/** Asks until the answer is not a 429 (the budget came back), at most `limitMs`. */
async function untilAllowed(ask: () => Promise<ApiResponse>, limitMs = 10_000): Promise<ApiResponse> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const res = await ask();
    if (res.status !== 429 || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('rate limits in one instance', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env });
  });
  afterAll(() => gw?.close());

  it('refuses the request past the budget with 429, Retry-After and RateLimit-* headers, and no quota used', async () => {
    const { token, userId } = await gw.userToken(undefined, 'strict');
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push(await account(gw, token));
    expect(allowed.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(allowed.map((res) => rateHeaders(res))).toEqual([
      { limit: '3', remaining: '2', reset: '1200', retryAfter: null },
      { limit: '3', remaining: '1', reset: '2400', retryAfter: null },
      { limit: '3', remaining: '0', reset: '3600', retryAfter: null },
    ]);

    const before = await refusals(gw, 'strict');
    const refused = await account(gw, token);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      status: 429,
      ok: false,
      message: expect.stringMatching(
        /^Too many requests: 3 per 3600 seconds for this token; retry in \d+ s$/,
      ),
      errors: [],
    });
    const headers = rateHeaders(refused);
    expect(headers).toMatchObject({ limit: '3', remaining: '0' });
    // The next request fits one interval (1200 s) after the first; a few seconds of it have passed.
    expect(Number(headers.retryAfter)).toBeGreaterThan(1100);
    expect(Number(headers.retryAfter)).toBeLessThanOrEqual(1200);
    expect(refused.body.message).toContain(`retry in ${headers.retryAfter} s`);
    expect(Number(headers.reset)).toBeGreaterThan(3500);
    expect(await refusals(gw, 'strict')).toBe(before + 1);
    // Not the monthly quota's answer.
    expect(refused.body.message).not.toContain('Please upgrade your plan');

    // Another token of the same user has a budget of its own; the refused request used no quota: 3 of
    // the first token and this one.
    const { token: second } = await gw.ctx.users.createToken(userId);
    const other = await account(gw, second);
    expect(other.status).toBe(200);
    expect(rateHeaders(other)).toMatchObject({ limit: '3', remaining: '2' });
    expect(other.body.data.quotas_left.requests).toBe(100 - 4);
  });

  it('counts every authenticated answer, errors too, and sets the headers on them', async () => {
    const { token } = await gw.userToken(undefined, 'strict');
    // A token may not manage tokens (403): still an authenticated request of this token.
    const forbidden = await gw.request('GET', '/api/account/tokens', { token });
    expect(forbidden.status).toBe(403);
    expect(rateHeaders(forbidden)).toMatchObject({ limit: '3', remaining: '2' });
    const invalid = await gw.request('POST', '/api/v2/ethereum/webhooks', { token, json: {} });
    expect(invalid.status).toBe(422);
    expect(rateHeaders(invalid)).toMatchObject({ limit: '3', remaining: '1' });
  });

  it('gives the budget back as time passes', async () => {
    const { token } = await gw.userToken(undefined, 'quick');
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const res = await account(gw, token);
      if (res.status === 429) refused = res;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body.message).toMatch(/^Too many requests: 2 per second for this token; retry in 1 s$/);
    expect(rateHeaders(refused!)).toMatchObject({ limit: '2', remaining: '0', retryAfter: '1' });
    const again = await untilAllowed(() => account(gw, token));
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-limit')).toBe('2');
  });

  it('counts a dashboard session per user, apart from the tokens', async () => {
    const { token, userId } = await gw.userToken(undefined, 'strict');
    for (let i = 0; i < 3; i++) expect((await account(gw, token)).status).toBe(200);
    expect((await account(gw, token)).status).toBe(429);
    const signIn = async () => {
      const { secret } = await gw.ctx.sessions.open(userId);
      return { cookie: `swy_session=${secret}` };
    };
    const [first, second] = [await signIn(), await signIn()];
    const statuses = [];
    for (const headers of [first, second, first, second])
      statuses.push((await gw.request('GET', '/api/account', { headers })).status);
    // Signing in again gives no fresh budget: both sessions share the user's.
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await gw.request('GET', '/api/account', { headers: first });
    expect(refused.body.message).toMatch(
      /^Too many requests: 3 per 3600 seconds for this account's dashboard sessions; retry in \d+ s$/,
    );
  });

  it("shows the plan's rate beside its quotas", async () => {
    const { token } = await gw.userToken(undefined, 'quick');
    const plan = await gw.request('GET', '/api/account/plan', { token });
    expect(plan.body.data.rate).toEqual({ requests: 2, seconds: 1 });
    const { token: free } = await gw.userToken(undefined, 'free');
    expect((await gw.request('GET', '/api/account/plan', { token: free })).body.data.rate).toBeNull();
  });

  it('sends no RateLimit headers for a plan without a rate, nor for public routes', async () => {
    const { token } = await gw.userToken(undefined, 'free');
    for (let i = 0; i < 10; i++) {
      const res = await account(gw, token);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
    expect((await gw.request('GET', '/healthz')).headers.get('ratelimit-limit')).toBeNull();
  });

  it('documents the rate limit in the OpenAPI', async () => {
    const doc = dereferenced((await gw.request('GET', '/openapi.json')).body);
    expect(doc.info.description).toMatch(/\| 429 \|[^\n]*rate limit/);
    const tooMany = doc.paths['/api/account'].get.responses['429'];
    expect(tooMany.description).toMatch(/rate limit/);
    expect(Object.keys(tooMany.headers ?? {})).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
  });
});

describe('rate limits shared through Redis', () => {
  // A prefix of this run's own: parallel test files (and runs) sharing the Redis never meet.
  const prefix = `switchyard-test:${randomBytes(6).toString('hex')}:`;
  const redisEnv = { ...env, REDIS_URL, REDIS_PREFIX: prefix };
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    first = await startGateway({ env: redisEnv });
    second = await startGateway({ env: redisEnv, database: first.database });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*` })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis.close();
  });

  it('two instances share one budget per token', async () => {
    const { token } = await first.userToken(undefined, 'strict');
    // The first request waits for each instance's connection to Redis, so none is counted alone.
    await untilConnected(first);
    await untilConnected(second);
    const statuses = [];
    for (const gw of [first, second, first, second, first]) statuses.push((await account(gw, token)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await account(second, token);
    expect(rateHeaders(refused)).toMatchObject({ limit: '3', remaining: '0' });
    expect(Number(rateHeaders(refused).retryAfter)).toBeGreaterThan(1100);
    // Both kept their keys under the prefix, which expire.
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    const keys = [];
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}*` })) keys.push(...batch);
    expect(keys).toHaveLength(1);
    const ttl = await redis.pTTL(keys[0]!);
    await redis.close();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(await fallbacks(first)).toBe(0);
    expect(await fallbacks(second)).toBe(0);
  });

  it('gives the shared budget back as time passes', async () => {
    const { token } = await first.userToken(undefined, 'quick');
    let refusedOn: TestGateway | undefined;
    for (let i = 0; i < 10 && refusedOn === undefined; i++) {
      const gw = i % 2 === 0 ? first : second;
      if ((await account(gw, token)).status === 429) refusedOn = gw;
    }
    expect(refusedOn).toBeDefined();
    expect((await untilAllowed(() => account(second, token))).status).toBe(200);
  });
});

describe('rate limits when Redis is down', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { ...env, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
  });
  afterAll(() => gw?.close());

  it('answers at once, limiting in this instance alone, with a warning and a metric', async () => {
    const { token } = await gw.userToken(undefined, 'strict');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await account(gw, token)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await fallbacks(gw)).toBe(4);
    const warnings = gw.logLines.filter((line) => line.includes('Redis unreachable'));
    // One warning for the outage, not one per request or reconnection attempt.
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, role: 'rate-limit' });
  });
});

async function fallbacks(gw: TestGateway): Promise<number> {
  const metric = await gw.ctx.metrics.getSingleMetric('switchyard_rate_limit_fallbacks_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

/** Waits until the gateway's Redis client is connected (it connects in the background at start). */
async function untilConnected(gw: TestGateway): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (gw.ctx.rateLimiter.ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the gateway did not connect to Redis');
}

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
