// The account dashboard in a real browser (Debian's Chromium, driven by playwright-core) against the
// sandbox: sign-up and sign-in, an API token used from outside, a webhook whose failed notification is
// retried from the page, and a screenshot of every page (DASHBOARD_SCREENSHOTS sets where; the README's
// come from `DASHBOARD_SCREENSHOTS=docs/images`).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../src/config/plans.ts';
import { PROJECT_ROOT } from '../helpers/processes.ts';
import { type SandboxRun, startSandboxRun } from './sandbox-runs.ts';

const CHROMIUM = '/usr/bin/chromium';
const sponsoredPlans = DEFAULT_PLANS.map((plan, i) =>
  i === 0 ? { ...plan, sponsored: { tron: '25' } } : plan,
);
const screenshots = path.resolve(
  PROJECT_ROOT,
  process.env['DASHBOARD_SCREENSHOTS'] || 'test-results/dashboard',
);
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-dashboard-'));

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
}

/**
 * A webhook receiver on loopback that answers 500 until told to answer 200, keeping every request; it can
 * go down (connections refused) and come back on the same port.
 */
async function startReceiver() {
  const received: Received[] = [];
  let answer = 500;
  const server = http.createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    received.push({ headers: request.headers, body, answered: answer });
    response.writeHead(answer).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    answerWith(status: number) {
      answer = status;
    },
    /** Stops listening and drops kept-alive connections: the next delivery is refused. */
    down: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** How many lines the text of the element takes (its rendered boxes at distinct heights). */
function linesOf(locator: ReturnType<Page['locator']>): Promise<number> {
  return locator.evaluate((element) => {
    const range = element.ownerDocument.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  });
}

/**
 * How many selects on the page show less than their chosen text: its width in the select's font against the
 * select's width less its padding and arrow.
 */
const CUT_SELECTS = `[...document.querySelectorAll('select')].filter((select) => {
  const context = document.createElement('canvas').getContext('2d');
  context.font = getComputedStyle(select).font;
  return context.measureText(select.selectedOptions[0]?.text ?? '').width > select.clientWidth - 36;
}).length`;

let sandbox: SandboxRun;
let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let base = '';
const email = `dev-${randomBytes(4).toString('hex')}@example.com`;
const password = `correct horse ${randomBytes(6).toString('hex')}`;
let apiToken = '';
let webhookSecret = '';
/** Uncaught errors in the page and anything the gateway's CSP refused: both must stay empty. */
const pageProblems: string[] = [];

/** Calls the API from outside the browser with the token the dashboard created. */
async function callApi(method: string, url: string, json?: unknown) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      Authorization: `Bearer ${apiToken}`,
      'X-Network': 'mainnet',
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
}

/** A screenshot with the one-time secrets painted over (they are a dead sandbox's, but still). */
async function shoot(name: string, fullPage = true): Promise<void> {
  await page.screenshot({
    path: path.join(screenshots, `dashboard-${name}.png`),
    fullPage,
    mask: [page.getByTestId('new-token'), page.getByTestId('webhook-secret')],
    maskColor: '#8c959f',
  });
}

/** expect.poll with room for a page to load (its default gives up after a second). */
function poll<T>(probe: () => T | Promise<T>, timeout = 15_000) {
  return expect.poll(probe, { timeout, interval: 100 });
}

const userMenuButton = () => page.getByRole('button', { name: email });

async function requestsLeft(): Promise<number> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  const figure = page.getByTestId('quota-left-requests');
  await poll(() => figure.textContent()).toMatch(/^[\d,]+$/);
  return Number((await figure.textContent())?.replaceAll(',', ''));
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  mkdirSync(screenshots, { recursive: true });
  receiver = await startReceiver();
  // The plan new users get (the first) lets the sponsors pay some of their Tron fees.
  // Users who sign up get the first plan, metered, rather than the sandbox's unmetered one: the pages
  // show quotas and usage against them.
  sandbox = await startSandboxRun(dir, {
    PLANS: JSON.stringify(sponsoredPlans),
    DEFAULT_PLAN: sponsoredPlans[0]!.name,
  });
  base = sandbox.info.baseUrl;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (error) => pageProblems.push(error.message));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) pageProblems.push(message.text());
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop('SIGINT');
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the account dashboard', () => {
  it('signs up, signs out, refuses a wrong password and signs in', async () => {
    await page.goto(`${base}/dashboard/`);
    // Signed out, any page leads to sign-in.
    await poll(() => page.url()).toBe(`${base}/dashboard/sign-in`);
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await shoot('sign-in', false);
    // A favicon of its own, served with the dashboard (no other origin).
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toMatch(/^\/dashboard\/[\w.-]+\.svg$/);
    const served = await fetch(`${base}${icon}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/svg+xml');

    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await userMenuButton().waitFor();
    await poll(() => page.url()).toBe(`${base}/dashboard/`);

    await userMenuButton().click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The session is gone on the gateway too, not only in the page.
    const session = await (await page.request.get(`${base}/api/session`)).json();
    expect(session.data).toMatchObject({ signed_in: false, email: null });

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(`${password}-wrong`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toContain('Wrong email or password');

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await userMenuButton().waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 60_000);

  it('creates an API token from the user menu, shows it once, and the API counts its calls', async () => {
    const before = await requestsLeft();
    // Requests per day over 30 days against the quota, today's including this page's own.
    await poll(() => page.getByTestId('usage-bar').count()).toBe(30);
    await poll(async () =>
      Number((await page.getByTestId('usage-today').textContent())?.replaceAll(',', '')),
    ).toBeGreaterThan(0);
    await shoot('account');

    // The user menu by keyboard: Enter opens it on its first entry, the arrows move, Escape closes it.
    const button = userMenuButton();
    await button.focus();
    await page.keyboard.press('Enter');
    await poll(() => button.getAttribute('aria-expanded')).toBe('true');
    const focused = () => page.locator(':focus').textContent();
    await poll(focused).toBe('Account');
    await page.keyboard.press('ArrowDown');
    await poll(focused).toBe('API tokens');
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('menu').count()).toBe(0);
    await poll(() => page.locator(':focus').getAttribute('id')).toBe('user-menu-button');
    await page.keyboard.press('Enter');
    await poll(focused).toBe('Account');
    await page.keyboard.press('ArrowDown');
    await poll(focused).toBe('API tokens');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();

    await page.getByLabel('Token name').fill('billing server');
    await page.getByRole('button', { name: 'Create token' }).click();
    apiToken = (await page.getByTestId('new-token').textContent()) ?? '';
    expect(apiToken).toMatch(/^swy_/);
    const row = page.getByTestId('tokens-table').locator('tbody tr').filter({ hasText: 'billing server' });
    await poll(() => row.textContent()).toContain('Never');
    await shoot('tokens');

    const account = await callApi('GET', '/api/account');
    expect(account.status).toBe(200);
    const leftForToken = account.body.data['quotas_left'] as { requests: number };
    expect(leftForToken.requests).toBeLessThan(before);

    // The Account page shows the calls made with the token (and its own).
    const after = await requestsLeft();
    expect(after).toBeLessThan(leftForToken.requests);

    // The token's secret was shown once: back on the page it is gone, and the token shows its use.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    await poll(() => row.textContent()).not.toContain('Never');
    expect(await page.getByTestId('new-token').count()).toBe(0);
    expect(await page.content()).not.toContain(apiToken);
  }, 60_000);

  it('creates a webhook in the form, lists its failed notification first and retries it to delivery', async () => {
    // The watched address, made on the Addresses page (its key sealed with a password).
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Addresses' }).click();
    await page.getByLabel('Chain').selectOption('ethereum');
    await poll(() => page.url()).toContain('chain=ethereum');
    // The API's refusal in the form's words, not the validator's.
    await page.getByLabel('Key password').fill('short');
    await page.getByRole('button', { name: 'Create address' }).click();
    const passwordError = page.locator('.field-error');
    await poll(() => passwordError.textContent()).toContain('at least 8 characters');
    expect(await passwordError.textContent()).not.toMatch(/must NOT|password field/);
    await page.getByLabel('Key password').fill('dashboard-test-1');
    await page.getByRole('button', { name: 'Create address' }).click();
    const notice = page.getByRole('status').filter({ hasText: /Address 0x\w+ created/ });
    const watched = /Address (0x\w+) created/.exec((await notice.textContent()) ?? '')![1]!;
    await poll(() => page.getByRole('table').textContent()).toContain(watched);
    const listed = await callApi('GET', '/api/v2/ethereum/addresses');
    expect(listed.body.data).toEqual([expect.objectContaining({ address: watched, secured: true })]);

    await nav.getByRole('link', { name: 'Webhooks' }).click();
    // The chain chosen last is kept.
    await poll(() => page.getByLabel('Chain').inputValue()).toBe('ethereum');
    // With no choice remembered (another browser), the pickers start where the user has addresses.
    await page.evaluate("localStorage.removeItem('switchyard.chain')");
    await page.goto(`${base}/dashboard/webhooks`);
    await poll(() => page.getByLabel('Chain').inputValue()).toBe('ethereum');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.locator('form.webhook-form');
    // Type is a choice of the chain's types; Ethereum has no mempool to notify from, so no such option.
    const type = form.getByLabel('Type', { exact: true });
    expect(await type.evaluate((element) => element.tagName)).toBe('SELECT');
    const types = await type.locator('option').allTextContents();
    expect(types[0]).toBe('Every type');
    expect(types.length).toBeGreaterThan(2);
    expect(await form.getByLabel(/first seen unconfirmed/).count()).toBe(0);
    // On a phone no select's chosen text is cut off.
    await page.setViewportSize({ width: 390, height: 844 });
    const cutSelects = await page.evaluate(CUT_SELECTS);
    expect(cutSelects).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    // A refusal names the form's fields, not the API's.
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await poll(() => form.textContent()).toContain('token contract, token id or comment');
    expect(await form.textContent()).not.toMatch(/token_id|contractaddress/);
    await page.getByLabel('To', { exact: true }).fill(watched);
    await page.getByLabel('Retry').selectOption('none');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    webhookSecret = (await page.getByTestId('webhook-secret').textContent()) ?? '';
    expect(webhookSecret).toMatch(/^whsec_/);
    const webhookRow = page
      .getByTestId('webhooks-table')
      .locator('tbody tr')
      .filter({ hasText: receiver.url });
    await webhookRow.waitFor();
    expect(await webhookRow.textContent()).toContain('none');

    // Hidden, then shown again on request: the same current secret.
    await page.getByRole('button', { name: 'Hide secret' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    await webhookRow.getByRole('button', { name: 'Show secret' }).click();
    await poll(() => page.getByTestId('webhook-secret').textContent()).toBe(webhookSecret);
    await shoot('webhooks');

    const funded = await callApi('POST', '/api/v2/ethereum/faucet', { address: watched, amount: '0.5' });
    expect(funded.status).toBe(200);
    await poll(() => receiver.received.length, 30_000).toBeGreaterThan(0);
    expect(receiver.received[0]!.answered).toBe(500);

    await nav.getByRole('link', { name: 'Notifications' }).click();
    const failedRows = page.getByTestId('failed-notifications').locator('tbody tr');
    const refresh = page.getByRole('button', { name: 'Refresh' });
    // The page shows what the gateway had when it loaded: Refresh until the failure is in.
    await poll(async () => {
      if ((await failedRows.count()) > 0) return failedRows.first().textContent();
      await refresh.click();
      return '';
    }, 30_000).toContain('failed');
    // The failed section comes before every other notification on the page.
    const firstTable = await page.locator('table').first().getAttribute('data-testid');
    expect(firstTable).toBe('failed-notifications');
    expect(await failedRows.first().textContent()).toContain('HTTP 500');

    // With the receiver down, a Retry is refused: the page says so, with the reason the gateway holds,
    // and no banner says it is on its way.
    await receiver.down();
    await failedRows.first().getByRole('button', { name: /Retry/ }).click();
    const refused = `connect ECONNREFUSED 127.0.0.1:${receiver.port}`;
    await poll(() => page.getByRole('alert').textContent(), 30_000).toContain(`failed again: ${refused}`);
    expect(await page.locator('.banner-ok').count()).toBe(0);
    await poll(() => failedRows.first().textContent()).toContain(refused);
    await poll(() => page.getByTestId('health-failed').textContent()).toBe('2');
    await shoot('notifications');

    // On a phone: the table says it scrolls, Retry stays in reach, a date stays on one line.
    await page.setViewportSize({ width: 390, height: 844 });
    const failedBox = page
      .locator('section.table-scroll')
      .filter({ has: page.getByTestId('failed-notifications') });
    await poll(() => failedBox.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    await poll(() => page.locator('.scroll-hint').first().isVisible()).toBe(true);
    expect(
      await failedBox.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).backgroundImage,
      ),
    ).toContain('gradient');
    const retryButton = failedRows.first().getByRole('button', { name: /Retry/ });
    // Scrolled down to the row only: the table itself stays where it starts.
    await failedRows
      .first()
      .evaluate((row) => row.ownerDocument.defaultView?.scrollBy(0, row.getBoundingClientRect().top - 200));
    const box = await retryButton.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await failedBox.evaluate((element) => element.scrollLeft)).toBe(0);
    expect(await linesOf(failedRows.first().locator('td').nth(7))).toBe(1);
    await shoot('notifications-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await receiver.up();
    receiver.answerWith(200);
    await failedRows.first().getByRole('button', { name: /Retry/ }).click();
    const allFirst = page.getByTestId('all-notifications').locator('tbody tr').first();
    // The page follows a delivery under way on its own, until it settles, and the banner with it.
    await poll(() => allFirst.getByTestId('notification-status').textContent(), 30_000).toBe('delivered');
    expect(await failedRows.count()).toBe(0);
    await poll(() => page.locator('.banner-ok').textContent()).toContain('delivered.');
    expect(await page.getByRole('alert').count()).toBe(0);
    // Delivery health: one delivered, the two failures, the two Retries, and the time from block to delivery.
    await poll(() => page.getByTestId('health-delivered').textContent()).toBe('1');
    expect(await page.getByTestId('health-failed').textContent()).toBe('2');
    expect(await page.getByTestId('health-retried').textContent()).toBe('2');
    expect(await page.getByTestId('health-latency').textContent()).toMatch(/^\d+(\.\d)? s$/);

    // The receiver got the retry, signed with the webhook's secret (both signatures).
    const delivered = receiver.received.find((request) => request.answered === 200);
    expect(delivered).toBeDefined();
    const notification = new Webhook(webhookSecret).verify(delivered!.body, delivered!.headers as never) as {
      txid: string;
      to: string;
    };
    expect(notification.to.toLowerCase()).toBe(watched.toLowerCase());
    expect(delivered!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    const expected = createHmac('sha256', webhookSecret).update(notification.txid).digest();
    const got = Buffer.from(String(delivered!.headers['x-signature']), 'base64');
    expect(got.length === expected.length && timingSafeEqual(got, expected)).toBe(true);
  }, 90_000);

  it("shows the plan's allowance of sponsored fees and the paymaster requests on the Account page", async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Account' }).click();
    const account = await callApi('GET', '/api/account');
    const fees = account.body.data['sponsored_fees'] as {
      chain: string;
      network: string;
      symbol: string;
      allowance: string;
      spent: string;
      left: string;
    }[];
    const tron = fees.find((fee) => fee.chain === 'tron' && fee.network === 'mainnet');
    expect(tron, JSON.stringify(fees)).toMatchObject({ symbol: 'TRX', spent: '0' });
    // Each row as the API has it: allowance, spent and left in the chain's coin.
    const row = page.getByTestId('sponsored-fees').locator('tbody tr').filter({ hasText: 'Tron mainnet' });
    await poll(() => row.locator('td').allTextContents()).toEqual([
      'Tron mainnet',
      `${tron!.allowance} TRX`,
      `${tron!.spent} TRX`,
      `${tron!.left} TRX`,
    ]);
    await poll(() => page.getByTestId('sponsored-fees').locator('tbody tr').count()).toBe(fees.length);

    // The paymaster requests of the chain the plan sponsors: none yet.
    const chain = page.getByLabel('Chain');
    expect(await chain.inputValue()).toBe('tron');
    await poll(() => page.getByText('No paymaster requests yet').count()).toBe(1);
    const listed = await callApi('GET', '/api/v2/tron/paymaster');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    // Another chain's, read when it is chosen.
    await chain.selectOption('ethereum');
    await poll(() => page.getByText('No paymaster requests yet').count()).toBe(1);
    await shoot('account-sponsored');
    expect(pageProblems).toEqual([]);
  }, 60_000);

  it('shows every other page, on a phone too', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Addresses' }).click();
    await poll(() => page.getByRole('table').count()).toBe(1);
    // Each address with its balance, read from the API: the faucet's 0.5 ETH, trimmed.
    await poll(() => page.getByTestId('balance').first().textContent()).toBe('0.5 ETH');
    await shoot('addresses');

    // 51 sends the node refuses (an empty address), kept in the history: the newest come first.
    const empty = await callApi('POST', '/api/v2/ethereum/addresses', {});
    const [keyless] = empty.body.data as unknown as { address: string; privateKey: string }[];
    const amounts = Array.from({ length: 51 }, (_, i) => `0.${String(i + 1).padStart(3, '0')}`);
    for (let i = 0; i < amounts.length; i += 10) {
      await Promise.all(
        amounts.slice(i, i + 10).map((amount) =>
          callApi('POST', '/api/v2/ethereum/transactions', {
            from: keyless!.address,
            to: keyless!.address,
            amount,
            privatekey: keyless!.privateKey,
          }),
        ),
      );
    }
    await nav.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
    const sends = page.getByTestId('transactions-table').locator('tbody tr');
    await poll(() => sends.first().locator('td').nth(2).textContent()).toBe('0.051');
    expect(await sends.count()).toBe(50);
    // The sends went ten at a time: the ten before the last come next, in any order among themselves.
    const shown = await sends.locator('td:nth-child(3)').allTextContents();
    const trimmed = amounts.slice(40, 50).map((amount) => amount.replace(/0+$/, ''));
    expect(new Set(shown.slice(1, 11))).toEqual(new Set(trimmed));
    expect(await sends.first().locator('td').nth(1).textContent()).toBe('ETH transfer');
    expect(await linesOf(sends.first().locator('td').first())).toBe(1);
    await shoot('transactions');

    // The network switch is in the header of every page and changes what the pages show.
    await nav.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByTestId('webhooks-table').waitFor();
    await page.getByLabel('Network').selectOption('testnet');
    await poll(() => page.getByText('No Ethereum webhooks on testnet yet.').count()).toBe(1);
    await page.getByLabel('Network').selectOption('mainnet');
    await page.getByTestId('webhooks-table').waitFor();

    await page.setViewportSize({ width: 375, height: 812 });
    await requestsLeft();
    await userMenuButton().waitFor();
    // Nothing wider than the phone: the page does not scroll sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await shoot('account-phone');

    expect(pageProblems).toEqual([]);
  }, 60_000);

  it('serves its files under a strict CSP: a deep link gets the page, a missing file a 404, hashed files a year of cache', async () => {
    const deep = await fetch(`${base}/dashboard/webhooks`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(deep.headers.get('content-security-policy')).toContain("default-src 'self'; script-src 'self'");
    expect(deep.headers.get('x-frame-options')).toBe('DENY');
    const html = await deep.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}${script}`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const missing = await fetch(`${base}/dashboard/assets/gone-1234.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, ok: false });
  });
});
