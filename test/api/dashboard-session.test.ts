import { Agent, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type RequestOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({
    env: {
      DASHBOARD_SIGNUP: 'open',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      // Every test here signs up from 127.0.0.1; the budgets per client address are tested on their own.
      SIGN_IN_RATE_PER_CLIENT: '1000/60',
      SIGN_UP_RATE_PER_CLIENT: '1000/60',
    },
  });
});
afterAll(() => gw?.close());

const PASSWORD = 'correct horse battery';

/** A browser's cookie jar for one site, just enough for the session's two cookies. */
class Browser {
  readonly cookies = new Map<string, string>();

  async request(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await gw.request(method, url, {
      ...options,
      headers: { ...(cookie ? { cookie } : {}), ...options.headers },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** A change as the dashboard makes it: with the CSRF cookie's value in X-CSRF-Token. */
  change(method: string, url: string, json?: unknown): Promise<ApiResponse> {
    return this.request(method, url, {
      ...(json === undefined ? {} : { json }),
      headers: { 'x-csrf-token': this.cookies.get('swy_csrf') ?? '' },
    });
  }
}

const email = () => `dash-${Math.random().toString(36).slice(2, 10)}@example.com`;

async function signedUp(): Promise<{ browser: Browser; email: string }> {
  const browser = new Browser();
  const address = email();
  const res = await browser.request('POST', '/api/session/signup', {
    json: { email: address, password: PASSWORD },
  });
  expect(res.status).toBe(201);
  return { browser, email: address };
}

describe('dashboard sign-up and sign-in', () => {
  it('signs up, sets an HttpOnly session cookie and a readable CSRF cookie, and knows who is signed in', async () => {
    const browser = new Browser();
    const address = email();
    const res = await browser.request('POST', '/api/session/signup', {
      json: { email: address.toUpperCase(), password: PASSWORD },
    });
    expect(res.body).toMatchObject({ status: 201, ok: true, data: { email: address } });
    const [session, csrf] = res.headers.getSetCookie();
    expect(session).toMatch(
      /^swy_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; SameSite=Lax; HttpOnly$/,
    );
    expect(csrf).toMatch(/^swy_csrf=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; SameSite=Lax$/);
    const who = await browser.request('GET', '/api/session');
    expect(who.body.data).toMatchObject({ signed_in: true, email: address, signup_open: true });
    expect((await new Browser().request('GET', '/api/session')).body.data).toMatchObject({
      signed_in: false,
      email: null,
    });
  });

  it('marks the cookies Secure when the page came over https through a trusted proxy', async () => {
    const proxied = await startGateway({ env: { DASHBOARD_SIGNUP: 'open', TRUST_PROXY: 'true' } });
    try {
      const res = await proxied.request('POST', '/api/session/signup', {
        json: { email: email(), password: PASSWORD },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(res.status).toBe(201);
      for (const cookie of res.headers.getSetCookie()) expect(cookie).toMatch(/; Secure$/);
    } finally {
      await proxied.close();
    }
  });

  it('refuses a short password, a taken email, and sign-up when it is closed', async () => {
    const { email: taken } = await signedUp();
    const short = await new Browser().request('POST', '/api/session/signup', {
      json: { email: email(), password: 'short' },
    });
    expect(short.status).toBe(422);
    expect(short.body.errors[0].field).toBe('password');
    const again = await new Browser().request('POST', '/api/session/signup', {
      json: { email: taken, password: PASSWORD },
    });
    expect(again.status).toBe(409);

    const closed = await startGateway();
    try {
      const res = await closed.request('POST', '/api/session/signup', {
        json: { email: email(), password: PASSWORD },
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Sign-up is closed: an administrator creates accounts');
      expect((await closed.request('GET', '/api/session')).body.data.signup_open).toBe(false);
    } finally {
      await closed.close();
    }
  });

  it('signs in with the right password only, the same answer for an unknown email', async () => {
    const { email: address } = await signedUp();
    const wrong = await new Browser().request('POST', '/api/session', {
      json: { email: address, password: 'nope' },
    });
    const unknown = await new Browser().request('POST', '/api/session', {
      json: { email: email(), password: PASSWORD },
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('Wrong email or password');
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const browser = new Browser();
    const right = await browser.request('POST', '/api/session', {
      json: { email: address, password: PASSWORD },
    });
    expect(right.status).toBe(200);
    expect((await browser.request('GET', '/api/account')).status).toBe(200);
  });

  it('locks an email after five wrong passwords, even for the right one, with Retry-After', async () => {
    const { email: address } = await signedUp();
    for (let i = 0; i < 5; i++) {
      const res = await new Browser().request('POST', '/api/session', {
        json: { email: address, password: `x${i}` },
      });
      expect(res.status).toBe(401);
    }
    const locked = await new Browser().request('POST', '/api/session', {
      json: { email: address, password: PASSWORD },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(
      /^Too many wrong passwords for this account; try again in \d+ seconds$/,
    );
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keeps only hashes of the password, the session and its CSRF token', async () => {
    const { browser, email: address } = await signedUp();
    const user = await gw.ctx.users.findByEmail(address);
    const db = gw.ctx.store.db;
    const stored = await db
      .selectFrom('user_passwords')
      .selectAll()
      .where('user_id', '=', user!.id)
      .execute();
    // Hashed at the test gateway's cost (KDF_COST=test, N = 2^10); kdf-cost.test.ts holds the full one.
    expect(stored[0]!.password_hash).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    const sessions = JSON.stringify(await db.selectFrom('sessions').selectAll().execute());
    for (const value of browser.cookies.values()) expect(sessions).not.toContain(value);
  });
});

/** A JSON POST from another local address (127.0.0.x): a client address of its own. */
async function postFrom(
  gateway: TestGateway,
  localAddress: string,
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: { message: string } }> {
  const dispatcher = new Agent({ localAddress });
  try {
    const res = await undiciRequest(gateway.baseUrl + path, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(json),
    });
    return {
      status: res.statusCode,
      headers: res.headers,
      body: (await res.body.json()) as { message: string },
    };
  } finally {
    await dispatcher.close();
  }
}

describe('what sign-in and sign-up accept', () => {
  it('refuses a form, multipart or text body with 415 before reading it: a cross-site form cannot sign a browser in', async () => {
    const { email: address } = await signedUp();
    const credentials = { email: address, password: PASSWORD };
    const crossSite = { origin: 'https://attacker.example', referer: 'https://attacker.example/login' };
    for (const path of ['/api/session', '/api/session/signup']) {
      const asForm = await new Browser().request('POST', path, { form: credentials, headers: crossSite });
      const asMultipart = await new Browser().request('POST', path, { multipart: credentials });
      // A form with enctype text/plain, whose body happens to be JSON.
      const asText = await new Browser().request('POST', path, {
        raw: JSON.stringify(credentials),
        headers: { 'content-type': 'text/plain', ...crossSite },
      });
      const bare = await new Browser().request('POST', path, { raw: JSON.stringify(credentials) });
      for (const res of [asForm, asMultipart, asText, bare]) {
        expect(res.status, `${path}: ${res.text}`).toBe(415);
        expect(res.body).toMatchObject({
          ok: false,
          message: 'This route takes a JSON body only: send Content-Type: application/json',
        });
        expect(res.headers.getSetCookie()).toEqual([]);
      }
    }
    const asJson = await new Browser().request('POST', '/api/session', {
      raw: JSON.stringify(credentials),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(asJson.status).toBe(200);
  });

  it('names the field and the problem, never the value it was sent', async () => {
    const hostile = '"<script>alert(1)</script>"\r\nSet-Cookie: x=1';
    for (const path of ['/api/session', '/api/session/signup']) {
      const res = await new Browser().request('POST', path, { json: { email: hostile, password: PASSWORD } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([
        { field: 'email', message: 'The email field is not an email address.' },
      ]);
      for (const part of ['<script>', 'alert(1)', '\r', 'Set-Cookie', '\\r\\n'])
        expect(res.text).not.toContain(part);
    }
    const { email: taken } = await signedUp();
    const again = await new Browser().request('POST', '/api/session/signup', {
      json: { email: taken, password: PASSWORD },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('An account with this email already exists');
    expect(again.text).not.toContain(taken);
  });
});

describe('sign-in and sign-up budgets per client address', () => {
  let limited: TestGateway;
  beforeAll(async () => {
    limited = await startGateway({
      env: {
        DASHBOARD_SIGNUP: 'open',
        SIGN_IN_RATE_PER_CLIENT: '3/3600',
        SIGN_UP_RATE_PER_CLIENT: '1/3600',
        // 127.0.0.1 plays the reverse proxy; the other loopback addresses are clients.
        TRUST_PROXY: '127.0.0.1',
      },
    });
  });
  afterAll(() => limited?.close());

  it('answers 429 with Retry-After past the budget, to that address only, whatever X-Forwarded-For says', async () => {
    const signIn = { email: email(), password: PASSWORD };
    for (let i = 0; i < 3; i++)
      expect((await postFrom(limited, '127.0.0.2', '/api/session', signIn)).status).toBe(401);
    // Without TRUST_PROXY a forwarded address is the client's own claim: it buys no fresh budget.
    const over = await postFrom(limited, '127.0.0.2', '/api/session', signIn, {
      'x-forwarded-for': '198.51.100.7',
    });
    expect(over.status).toBe(429);
    expect(over.body.message).toMatch(/^Too many sign-ins from this address; retry in \d+ s$/);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(1000);
    expect((await postFrom(limited, '127.0.0.3', '/api/session', signIn)).status).toBe(401);

    const signUp = { email: email(), password: PASSWORD };
    expect((await postFrom(limited, '127.0.0.2', '/api/session/signup', signUp)).status).toBe(201);
    const second = await postFrom(limited, '127.0.0.2', '/api/session/signup', { ...signUp, email: email() });
    expect(second.status).toBe(429);
    expect(second.body.message).toMatch(/^Too many sign-ups from this address; retry in \d+ s$/);
    // The sign-in budget is its own: sign-ups did not use it.
    expect((await postFrom(limited, '127.0.0.3', '/api/session', signIn)).status).toBe(401);
  });

  it('counts the client a trusted proxy names, which a forged X-Forwarded-For does not change', async () => {
    const signIn = { email: email(), password: PASSWORD };
    // The proxy appends the address it saw to whatever the client sent: the first entries are the client's word.
    const through = (forged: string, client: string) =>
      postFrom(limited, '127.0.0.1', '/api/session', signIn, { 'x-forwarded-for': `${forged}, ${client}` });
    for (let i = 0; i < 3; i++) expect((await through(`198.51.100.${i}`, '203.0.113.9')).status).toBe(401);
    const over = await through('198.51.100.99', '203.0.113.9');
    expect(over.status).toBe(429);
    expect((await through('198.51.100.99', '203.0.113.10')).status).toBe(401);
  });
});

describe('a session beside the API tokens', () => {
  it('reads with the cookie, and changes only with the CSRF token', async () => {
    const { browser } = await signedUp();
    const body = {
      json: { url: 'http://127.0.0.1:9/hook', to: '0x52908400098527886E0F7030069857D2E4169EE7' },
    };
    const withoutToken = await browser.request('POST', '/api/v2/ethereum/webhooks', body);
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.message).toBe('Missing or wrong CSRF token');
    const wrongToken = await browser.request('POST', '/api/v2/ethereum/webhooks', {
      ...body,
      headers: { 'x-csrf-token': 'A'.repeat(43) },
    });
    expect(wrongToken.status).toBe(403);
    expect((await browser.request('GET', '/api/v2/ethereum/webhooks')).body.data).toEqual([]);
    const created = await browser.change('POST', '/api/v2/ethereum/webhooks', body.json);
    expect(created.status).toBe(201);
    const secret = await browser.request(
      'GET',
      `/api/v2/ethereum/webhooks/${created.body.data.webhook}/secret`,
    );
    expect(secret.body.data).toEqual({ secret: created.body.data.secret });
  });

  it('lets a wrong bearer token decide alone, whatever cookie comes with it', async () => {
    const { browser } = await signedUp();
    const res = await browser.request('GET', '/api/account', {
      headers: { authorization: 'Bearer swy_nope' },
    });
    expect(res.status).toBe(401);
  });

  it('ends the session on sign-out, and refuses a sign-out without the CSRF token', async () => {
    const { browser } = await signedUp();
    const kept = { ...Object.fromEntries(browser.cookies) };
    expect((await browser.request('DELETE', '/api/session')).status).toBe(403);
    const out = await browser.change('DELETE', '/api/session');
    expect(out.status).toBe(200);
    expect(browser.cookies.size).toBe(0);
    // The old cookie, replayed, opens nothing.
    const replay = await gw.request('GET', '/api/account', {
      headers: { cookie: `swy_session=${kept['swy_session']}` },
    });
    expect(replay.status).toBe(401);
  });
});

describe('API tokens from the dashboard', () => {
  it('creates a token shown once, lists it without its secret, and revokes it', async () => {
    const { browser } = await signedUp();
    const created = await browser.change('POST', '/api/account/tokens', { name: '  deploy bot ' });
    expect(created.status).toBe(201);
    const { token, id, prefix } = created.body.data;
    expect(token).toMatch(/^swy_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(prefix).toBe(`swy_${id}`);
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(200);

    const listed = await browser.request('GET', '/api/account/tokens');
    expect(listed.body.data).toEqual([
      { id, prefix, name: 'deploy bot', created_at: expect.any(String), last_used_at: expect.any(String) },
    ]);
    expect(listed.text).not.toContain(token.slice(17));

    expect((await browser.change('DELETE', `/api/account/tokens/${id}`)).status).toBe(200);
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(401);
    expect((await browser.request('GET', '/api/account/tokens')).body.data).toEqual([]);
    expect((await browser.change('DELETE', `/api/account/tokens/${id}`)).status).toBe(404);
  });

  it("does not revoke another user's token, and answers token routes only to a session", async () => {
    const { browser } = await signedUp();
    const other = await gw.userToken();
    const otherId = other.token.slice(4, 16);
    expect((await browser.change('DELETE', `/api/account/tokens/${otherId}`)).status).toBe(404);
    expect((await gw.request('GET', '/api/account', { token: other.token })).status).toBe(200);

    for (const [method, url] of [
      ['GET', '/api/account/tokens'],
      ['POST', '/api/account/tokens'],
      ['DELETE', `/api/account/tokens/${otherId}`],
      ['DELETE', '/api/session'],
    ] as const) {
      const res = await gw.request(method, url, {
        token: other.token,
        ...(method === 'POST' ? { json: { name: 'x' } } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(403);
    }
  });

  it("shows the plan's totals that quotas_left counts down from", async () => {
    const { browser } = await signedUp();
    const plan = await browser.request('GET', '/api/account/plan');
    expect(plan.body.data).toEqual({
      name: 'plus',
      period: 'month',
      quotas: { webhooks: 375, addresses: 750, requests: 50_000, transactions: 500 },
      rate: { requests: 50, seconds: 1 },
    });
  });
});
