import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDENTITY_CACHE_MS } from '../../src/accounts/identity-cache.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { run, waitFor } from '../helpers/processes.ts';

// A process test: the CLI runs on the store code every database shares (the production-start test runs
// it on Postgres), so it runs once, on SQLite. The first command runs as a user types it (npm and tsx);
// the others run compiled (dist/, built by the e2e project's global setup), a second each instead of
// several.
let gw: TestGateway;
const cli = (...args: string[]) =>
  run(process.execPath, ['dist/src/cli/main.js', ...args], gw.database.processEnv);

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw?.close());

describe('admin CLI', { timeout: 120_000 }, () => {
  it('token create prints only the token, creating the user, through npm run -s cli', async () => {
    // As a user's shell runs it: no loglevel inherited from an outer npm, so only -s keeps npm's lines out.
    const result = await run(
      'npm',
      ['run', '-s', 'cli', '--', 'token', 'create', '--email', 'cli@example.com'],
      {
        ...gw.database.processEnv,
        npm_config_loglevel: undefined,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^swy_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
    const token = result.stdout.trim();
    const res = await gw.request('GET', '/api/account', { token });
    expect(res.status).toBe(200);
    expect(res.body.data.plan).toBe('PLUS');
  });

  it('lists tokens by prefix without the secret, and revokes them', async () => {
    const created = await cli('token', 'create', '--email', 'list@example.com', '--name', 'ci');
    const token = created.stdout.trim();
    const listed = await cli('token', 'list', '--email', 'list@example.com');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(token.slice(0, 16));
    expect(listed.stdout).not.toContain(token.slice(17));
    const revoked = await cli('token', 'revoke', token.slice(0, 16));
    expect(revoked.code).toBe(0);
    expect((await gw.request('GET', '/api/account', { token })).status).toBe(401);
    expect((await cli('token', 'revoke', token.slice(0, 16))).code).toBe(2);
  });

  it('sets a dashboard password from stdin, which signs the user in and ends their other sessions', async () => {
    expect((await cli('user', 'create', '--email', 'dash@example.com')).code).toBe(0);
    const signIn = (password: string) =>
      gw.request('POST', '/api/session', { json: { email: 'dash@example.com', password } });
    expect((await signIn('a dashboard password')).status).toBe(401);
    const set = await run(
      process.execPath,
      ['dist/src/cli/main.js', 'user', 'password', '--email', 'dash@example.com'],
      gw.database.processEnv,
      'a dashboard password\n',
    );
    expect(set.stdout).toBe('dashboard password of dash@example.com set\n');
    const first = await signIn('a dashboard password');
    expect(first.status).toBe(200);
    const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
    expect((await gw.request('GET', '/api/account', { headers: { cookie } })).status).toBe(200);

    const short = await run(
      process.execPath,
      ['dist/src/cli/main.js', 'user', 'password', '--email', 'dash@example.com'],
      gw.database.processEnv,
      'short\n',
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('the password must be 12 to 1024 characters');
    await run(
      process.execPath,
      ['dist/src/cli/main.js', 'user', 'password', '--email', 'dash@example.com'],
      gw.database.processEnv,
      'another long password\n',
    );
    // The session ended in the database at once; a gateway on SQLite hears of a change another process
    // made when the identity it keeps ages out (IDENTITY_CACHE_MS, 1 s).
    const ended = async () =>
      (await gw.request('GET', '/api/account', { headers: { cookie } })).status === 401 ? true : undefined;
    await waitFor(ended, IDENTITY_CACHE_MS + 500);
    expect((await signIn('another long password')).status).toBe(200);
  });

  it('creates users, sets plans and refuses bad input with a message', async () => {
    expect((await cli('user', 'create', '--email', 'plan@example.com')).code).toBe(0);
    const duplicate = await cli('user', 'create', '--email', 'plan@example.com');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    const set = await cli(
      'plan',
      'set',
      '--email',
      'plan@example.com',
      '--plan',
      'pro',
      '--yearly',
      '--ends',
      '2027-05-03',
    );
    expect(set.code).toBe(0);
    const token = (await cli('token', 'create', '--email', 'plan@example.com')).stdout.trim();
    const { body } = await gw.request('GET', '/api/account', { token });
    expect(body.data).toMatchObject({ plan: 'PRO', is_yearly: 1, ends_at: '2027-05-03T23:59:59.999Z' });
    expect((await cli('plan', 'set', '--email', 'plan@example.com', '--plan', 'gold')).stderr).toContain(
      'Unknown plan',
    );
    expect((await cli('frobnicate')).code).toBe(2);
    const users = await cli('user', 'list');
    expect(users.stdout).toContain('plan@example.com');
  });
});

describe('admin CLI on a sandbox (SANDBOX_DIR)', { timeout: 120_000 }, () => {
  // The sandbox's folder without the sandbox running: its database is made by the first command, and
  // test/e2e/sandbox.test.ts runs the same commands beside a running sandbox.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-cli-sandbox-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const sandboxCli = (...args: string[]) =>
    run(process.execPath, ['dist/src/cli/main.js', ...args], { SANDBOX_DIR: dir, DATABASE_URL: undefined });

  it("creates users on the sandbox's plan, unmetered, as the sandbox does", async () => {
    expect((await sandboxCli('user', 'create', '--email', 'tryer@example.com')).code).toBe(0);
    const users = await sandboxCli('user', 'list');
    expect(users.stdout).toMatch(/tryer@example\.com\s+\S+\s+sandbox\s+active\s/);
    const plans = await sandboxCli('plan', 'list');
    expect(plans.stdout).toMatch(/^sandbox\s+month\s+-\s+-\s+-\s+-\s+yes$/m);
  });

  it('config check describes the sandbox, not a production gateway', async () => {
    const check = await sandboxCli('config', 'check');
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`database: sqlite at ${path.join(dir, 'switchyard.db')}\n`);
    expect(check.stdout).toMatch(/^ {2}API: 127\.0\.0\.1:\d+$/m);
    expect(check.stdout).toContain("node endpoints: the sandbox's devnets\n");
    expect(check.stdout).toContain('(new users: sandbox)\n');
    expect(check.stdout).toContain(`sandbox: ${dir}, never started (npm run sandbox starts it)\n`);
  });
});

describe('admin CLI: fee sponsors', { timeout: 120_000 }, () => {
  const sponsorCli = (args: string[], password?: string) =>
    run(process.execPath, ['dist/src/cli/main.js', 'sponsor', ...args], gw.database.processEnv, password);

  it('sets a password-protected custodial address as a sponsor with its password, lists and removes it', async () => {
    const operator = await gw.userToken('sponsor@example.com');
    const place = { userId: operator.userId, chain: 'tron', network: 'testnet' as const };
    const { address, privateKey } = await gw.ctx.custody.create(place, 'the sponsor password');
    const set = ['set', '--chain', 'tron', '--network', 'testnet', '--email', 'sponsor@example.com'];
    const withAddress = [...set, '--address', address, '--budget', '100.5', '--period', 'day'];

    const wrong = await sponsorCli(withAddress, 'not the password\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Wrong password');
    expect(await gw.ctx.sponsorship.sponsors.get('tron', 'testnet')).toBeNull();

    const right = await sponsorCli(withAddress, 'the sponsor password\n');
    expect(right.stderr).toBe('');
    expect(right.code).toBe(0);
    expect(right.stdout).toBe(
      `sponsor of tron testnet set: ${address} (sponsor@example.com), budget 100.5 TRX a day\n`,
    );
    expect(right.stdout).not.toContain(privateKey);
    expect(await gw.ctx.sponsorship.sponsors.get('tron', 'testnet')).toMatchObject({
      address,
      userId: operator.userId,
      budget: 100_500_000n,
      period: 'day',
    });
    expect((await gw.ctx.sponsorship.sponsors.keyHolder('tron', 'testnet'))?.privateKey).toBe(privateKey);

    // config check names the sponsors it finds in the database, never a key.
    const check = await cli('config', 'check');
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`fee sponsor: tron testnet ${address}\n`);
    expect(check.stdout).not.toContain(privateKey);

    const listed = await sponsorCli(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`tron\\s+testnet\\s+${address}\\s+100.5 TRX\\s+day`));
    expect(listed.stdout).not.toContain(privateKey);

    // Without --budget the sponsor has no limit, a month at a time.
    expect((await sponsorCli([...set, '--address', address], 'the sponsor password\n')).code).toBe(0);
    expect(await gw.ctx.sponsorship.sponsors.get('tron', 'testnet')).toMatchObject({
      budget: null,
      period: 'month',
    });

    const removed = await sponsorCli(['remove', '--chain', 'tron', '--network', 'testnet']);
    expect(removed).toMatchObject({ code: 0, stdout: 'sponsor of tron testnet removed\n' });
    expect(await gw.ctx.sponsorship.sponsors.get('tron', 'testnet')).toBeNull();
    const again = await sponsorCli(['remove', '--chain', 'tron', '--network', 'testnet']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('no sponsor set for tron testnet');
    expect((await sponsorCli(['list'])).stdout).toBe('(none)\n');
  });

  it('refuses an address that is not a custodial address of the user, a chain without sponsors and bad flags', async () => {
    const owner = await gw.userToken('owner@example.com');
    await gw.userToken('other@example.com');
    const place = { userId: owner.userId, chain: 'tron', network: 'mainnet' as const };
    const { address } = await gw.ctx.custody.create(place, 'the owner password');
    const set = (email: string, ...more: string[]) =>
      sponsorCli(
        ['set', '--chain', 'tron', '--network', 'mainnet', '--email', email, '--address', address, ...more],
        'the owner password\n',
      );
    const notTheirs = await set('other@example.com');
    expect(notTheirs.code).toBe(2);
    expect(notTheirs.stderr.split('\n')[0]).toBe(
      `${address} is not a custodial address of other@example.com on tron mainnet`,
    );
    const unsecure = await gw.ctx.custody.create(place);
    const noKey = await sponsorCli(
      ['set', '--chain', 'tron', '--network', 'mainnet', '--email', 'owner@example.com'].concat([
        '--address',
        unsecure.address,
      ]),
      'the owner password\n',
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('a sponsor needs a password-protected one');
    expect((await set('owner@example.com', '--period', 'week')).stderr).toContain(
      '--period must be day, month or year',
    );
    expect((await set('owner@example.com', '--budget', '1e3')).code).toBe(2);
    const bitcoin = await sponsorCli(
      ['set', '--chain', 'bitcoin', '--network', 'mainnet', '--email', 'owner@example.com', '--address', 'x'],
      'the owner password\n',
    );
    expect(bitcoin.code).toBe(2);
    expect(bitcoin.stderr).toContain('bitcoin has no fee sponsor');
    expect((await sponsorCli(['set', '--chain', 'nochain', '--network', 'mainnet'])).code).toBe(2);
    expect((await sponsorCli(['frobnicate'])).stderr).toContain('unknown command "sponsor frobnicate"');
    expect(await gw.ctx.sponsorship.sponsors.list()).toEqual([]);
  });
});
