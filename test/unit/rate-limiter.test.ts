import { describe, expect, it } from 'vitest';
import { gcraStep, intervalUs } from '../../src/accounts/rate-gcra.ts';
import { LocalRateLimiter } from '../../src/accounts/rate-limiter.ts';
import { parsePlans } from '../../src/config/plans.ts';
import { loadConfig } from '../../src/config.ts';

const SECOND = 1_000_000;

/** A limiter on a clock the test moves by hand (µs). */
function limiterAt(start = 1_700_000_000 * SECOND) {
  let now = start;
  const limiter = new LocalRateLimiter(() => now);
  return {
    limiter,
    advance: (us: number) => {
      now += us;
    },
  };
}

describe('GCRA arithmetic (in-process limiter)', () => {
  const rate = { requests: 3, seconds: 1 };

  it('allows the whole budget at once, counting down, then refuses with when to retry', async () => {
    const { limiter } = limiterAt();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.take('k', rate));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // The budget is whole again in 3 intervals of 333,334 µs: 1.000002 s, rounded up.
    expect(decisions[3]).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });
  });

  it('gives one request back per interval, never more than the budget', async () => {
    const { limiter, advance } = limiterAt();
    for (let i = 0; i < 3; i++) await limiter.take('k', rate);
    advance(intervalUs(rate) - 1);
    expect((await limiter.take('k', rate)).allowed).toBe(false);
    advance(1);
    expect(await limiter.take('k', rate)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.take('k', rate)).allowed).toBe(false);
    // A long pause refills the budget to its size, not beyond.
    advance(60 * SECOND);
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push((await limiter.take('k', rate)).allowed);
    expect(burst).toEqual([true, true, true, false]);
  });

  it('lets a burst of `requests` through, then one per interval, whatever the caller sends', async () => {
    const { limiter, advance } = limiterAt();
    const slow = { requests: 5, seconds: 10 };
    const allowedAt: number[] = [];
    // A request every 100 ms for a minute.
    for (let t = 0; t < 60 * SECOND; t += SECOND / 10) {
      if ((await limiter.take('k', slow)).allowed) allowedAt.push(t);
      advance(SECOND / 10);
    }
    // 5 at once, then one every 2 s.
    expect(allowedAt.slice(0, 7)).toEqual([0, 1, 2, 3, 4, 20, 40].map((tenths) => (tenths * SECOND) / 10));
    expect(allowedAt.length).toBe(5 + 29);
    // In any span, at most the burst plus one per interval that fits in it.
    for (const start of allowedAt) {
      for (const span of [SECOND, 10 * SECOND, 30 * SECOND]) {
        const inSpan = allowedAt.filter((t) => t >= start && t < start + span);
        expect(inSpan.length).toBeLessThanOrEqual(5 + Math.floor(span / (2 * SECOND)));
      }
    }
  });

  it('refused requests do not use the budget', async () => {
    const { limiter, advance } = limiterAt();
    const one = { requests: 1, seconds: 10 };
    expect((await limiter.take('k', one)).allowed).toBe(true);
    for (let i = 0; i < 50; i++) expect((await limiter.take('k', one)).allowed).toBe(false);
    advance(10 * SECOND);
    expect((await limiter.take('k', one)).allowed).toBe(true);
  });

  it('keeps each key apart', async () => {
    const { limiter } = limiterAt();
    const one = { requests: 1, seconds: 60 };
    expect((await limiter.take('a', one)).allowed).toBe(true);
    expect((await limiter.take('a', one)).allowed).toBe(false);
    expect((await limiter.take('b', one)).allowed).toBe(true);
  });

  it('counts Retry-After and RateLimit-Reset in whole seconds, rounded up', () => {
    const now = 1_000 * SECOND;
    const minute = { requests: 2, seconds: 60 };
    const first = gcraStep(null, now, minute);
    expect(first.decision).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 30 });
    const second = gcraStep(first.tatUs, now, minute);
    expect(second.decision).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
    const third = gcraStep(second.tatUs, now + 1, minute);
    expect(third.decision).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 30,
    });
    expect(third.tatUs).toBe(second.tatUs);
  });

  it('rounds an interval that does not divide evenly up, so the pace is never faster', () => {
    expect(intervalUs({ requests: 3, seconds: 1 })).toBe(333_334);
    expect(intervalUs({ requests: 1_000_000, seconds: 1 })).toBe(1);
  });

  it('forgets keys whose budget is full again', async () => {
    const { limiter, advance } = limiterAt();
    const rate1 = { requests: 1, seconds: 1 };
    for (let i = 0; i < 9_999; i++) await limiter.take(`idle-${i}`, rate1);
    advance(2 * SECOND);
    await limiter.take('busy', rate1);
    expect(limiter.size).toBe(1);
  });
});

describe('a plan rate in PLANS', () => {
  const plan = (rate: unknown) =>
    JSON.stringify([
      { name: 'p', quotas: { webhooks: 1, addresses: 1, requests: 1, transactions: 1 }, rate },
    ]);

  it('reads {requests, seconds}; null or absent is no limit', () => {
    expect(parsePlans(plan({ requests: 5, seconds: 2 }), 'PLANS')[0]?.rate).toEqual({
      requests: 5,
      seconds: 2,
    });
    expect(parsePlans(plan(null), 'PLANS')[0]?.rate).toBeNull();
    expect(parsePlans(plan(undefined), 'PLANS')[0]?.rate).toBeNull();
  });

  it.each([
    { requests: 0, seconds: 1 },
    { requests: 1.5, seconds: 1 },
    { requests: 5, seconds: 0 },
    { requests: 5, seconds: 86_401 },
    { requests: 5 },
    [5, 1],
    '5/s',
  ])('refuses %j', (rate) => {
    expect(() => parsePlans(plan(rate), 'PLANS')).toThrow(/rate must be null or/);
  });
});

describe('REDIS_URL and REDIS_PREFIX', () => {
  it('are unset and `switchyard:` by default: rates are counted in this process', () => {
    expect(loadConfig({}).redis).toEqual({ url: undefined, prefix: 'switchyard:' });
  });

  it('take a redis:// or rediss:// URL and refuse anything else without echoing it', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://u:pw@cache:6380/2' }).redis.url).toBe(
      'rediss://u:pw@cache:6380/2',
    );
    expect(() => loadConfig({ REDIS_URL: 'http://u:secret@cache' })).toThrow(
      /REDIS_URL.*must start with redis:\/\/ or rediss:\/\//,
    );
    expect(() => loadConfig({ REDIS_URL: 'http://u:secret@cache' })).not.toThrow(/secret/);
  });
});
