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

/** A webhook receiver on loopback that answers 500 until told to answer 200, keeping every request. */
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
    received,
    answerWith(status: number) {
      answer = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
  sandbox = await startSandboxRun(dir, { PLANS: JSON.stringify(sponsoredPlans) });
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
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('URL').fill(receiver.url);
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
    await shoot('notifications');

    receiver.answerWith(200);
    await failedRows.first().getByRole('button', { name: /Retry/ }).click();
    const allFirst = page.getByTestId('all-notifications').locator('tbody tr').first();
    // The page follows a delivery under way on its own, until it settles.
    await poll(() => allFirst.getByTestId('notification-status').textContent(), 30_000).toBe('delivered');
    expect(await failedRows.count()).toBe(0);

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
    await shoot('addresses');

    await nav.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
    await poll(() => page.getByText('No Ethereum transactions').count()).toBe(1);
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
