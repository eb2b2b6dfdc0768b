import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { send } from '../helpers/gateway.ts';
import { exited, run, startDetached, waitFor } from '../helpers/processes.ts';
import { groupAlive } from './sandbox-runs.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run sandbox', () => {
  it('starts, writes sandbox.json, serves the demo token, shares its database with the CLI and stops on Ctrl-C', async () => {
    let baseUrl = '';
    const sandbox = startDetached('npm', ['run', 'sandbox'], { PORT: '0', SANDBOX_DIR: dir });
    const file = path.join(dir, 'sandbox.json');
    try {
      const info = await waitFor(
        () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined),
        120_000,
      );
      expect(info).toMatchObject({
        baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        token: expect.any(String),
      });
      expect(info.chains).toBeTypeOf('object');
      baseUrl = info.baseUrl;
      await waitFor(() => (sandbox.output().includes('sandbox ready') ? true : undefined), 10_000);
      // The token is printed once at start, and nowhere in the gateway's log file.
      expect(sandbox.output()).toContain(info.token);
      expect(readFileSync(path.join(dir, 'gateway.log'), 'utf8')).not.toContain(info.token.slice(17));

      const account = await send(info.baseUrl, 'GET', '/api/account', { token: info.token });
      expect(account.status).toBe(200);
      expect(account.body.data.plan).toBe('SANDBOX');

      // Tron runs on devnets for both networks, with demo tokens; the faucet funds an address at once.
      expect(info.chains.tron).toMatchObject({
        networks: ['mainnet', 'testnet'],
        tokens: { trc20: { USDT: expect.stringMatching(/^T/) }, trc721: { NFT: expect.any(String) } },
      });
      const tron = (method: string, url: string, json?: unknown, network = 'mainnet') =>
        send(info.baseUrl, method, `/api/v2/tron${url}`, {
          token: info.token,
          headers: { 'x-network': network },
          ...(json === undefined ? {} : { json }),
        });
      const created = await tron('POST', '/addresses', {});
      const address = created.body.data[0].address as string;
      const funded = await tron('POST', '/faucet', { address, amount: '25' }, 'testnet');
      expect(funded.status, funded.text).toBe(200);
      expect((await tron('GET', `/balances/${address}`, undefined, 'testnet')).body.data.balance).toBe(
        '25000000',
      );
      expect((await tron('GET', `/balances/${address}`)).body.data.balance).toBe('0');
      const usdt = await tron('POST', '/faucet', {
        address,
        amount: '10',
        contractaddress: info.chains.tron.tokens.trc20.USDT,
      });
      expect(usdt.body.data).toMatchObject({ symbol: 'USDT', amount: '10' });

      // Every chain whose fees can be sponsored has a sponsor on both networks (Bitcoin pays its own),
      // funded before the sandbox said it was ready; an address holding only the demo USDT has the
      // paymaster's fee for sending it estimated.
      for (const chain of ['tron', 'ethereum', 'bsc', 'polygon', 'arbitrum', 'base', 'optimism', 'solana']) {
        expect(Object.keys(info.sponsors[chain] ?? {}), chain).toEqual(['mainnet', 'testnet']);
      }
      expect(info.sponsors.tron.mainnet).toMatch(/^T/);
      expect(info.sponsors.bitcoin).toBeUndefined();
      expect(sandbox.output()).not.toContain('no fee sponsor');
      const receiver = (await tron('POST', '/addresses', {})).body.data[0].address as string;
      const estimate = await tron('POST', '/paymaster/estimate', {
        type: 'TRC20',
        from: address,
        to: receiver,
        contractaddress: info.chains.tron.tokens.trc20.USDT,
        amount: '4',
      });
      expect(estimate.status, estimate.text).toBe(200);
      expect(estimate.body.data).toMatchObject({ paymaster_fee: expect.any(String) });
      expect(Number(estimate.body.data.energy_consumption)).toBeGreaterThan(0);

      // Every EVM chain runs on anvil, per network, with its demo tokens: Base and Optimism too, as the
      // shipped chain file lists them.
      for (const chain of ['ethereum', 'bsc', 'polygon', 'arbitrum', 'base', 'optimism']) {
        expect(info.chains[chain], chain).toMatchObject({
          networks: ['mainnet', 'testnet'],
          tokens: { erc20: { USDT: expect.stringMatching(/^0x/) } },
        });
      }
      const eth = await send(info.baseUrl, 'POST', '/api/v2/ethereum/addresses', {
        token: info.token,
        json: {},
      });
      const ethAddress = eth.body.data[0].address as string;
      await send(info.baseUrl, 'POST', '/api/v2/ethereum/faucet', {
        token: info.token,
        json: { address: ethAddress, amount: '1.5' },
      });
      const ethBalance = await send(info.baseUrl, 'GET', `/api/v2/ethereum/balances/${ethAddress}`, {
        token: info.token,
      });
      expect(ethBalance.body.data).toBe('1.500000000000000000');

      // Base and Optimism on their testnets: an address funded with ETH and USDT sends both, and the
      // chain's reads, token reads and history answer.
      // The sends are signed with the chain id of the file, which the devnet's node checks.
      const password = 'sandbox password';
      for (const chain of ['base', 'optimism']) {
        const evm = (method: string, url: string, json?: unknown) =>
          send(info.baseUrl, method, `/api/v2/${chain}${url}`, {
            token: info.token,
            headers: { 'x-network': 'testnet' },
            ...(json === undefined ? {} : { json }),
          });
        const usdt = info.chains[chain].tokens.erc20.USDT as string;
        const [from, to] = await Promise.all(
          [0, 1].map(
            async () => (await evm('POST', '/addresses', { password })).body.data[0].address as string,
          ),
        );
        expect((await evm('POST', '/faucet', { address: from, amount: '1' })).status, chain).toBe(200);
        expect(
          (await evm('POST', '/faucet', { address: from, amount: '5', contractaddress: usdt })).status,
        ).toBe(200);
        const native = await evm('POST', '/transactions', { from, to, amount: '0.25', password });
        expect(native.status, native.text).toBe(201);
        const token = await evm('POST', '/transactions/erc20', {
          from,
          to,
          amount: '2',
          contractaddress: usdt,
          password,
        });
        expect(token.status, token.text).toBe(201);
        await waitFor(
          async () =>
            (await evm('GET', `/balances/${to}`)).body.data === '0.250000000000000000' ? true : undefined,
          10_000,
        );
        await waitFor(async () => {
          const balance = await evm('GET', `/balances/${to}/erc20/${usdt}`);
          return balance.body.data === '2.000000' ? true : undefined;
        }, 10_000);
        const tx = await evm('GET', `/transactions/${native.body.data.txid}/decoded`);
        expect(tx.body.data.transaction, chain).toMatchObject({
          status: 'SUCCESS',
          amount: '0.250000000000000000',
        });
        expect((await evm('GET', '/blocks/number')).status).toBe(200);
        expect((await evm('GET', `/erc20/${usdt}`)).status).toBe(200);
        expect((await evm('GET', '/transactions')).body.total).toBeGreaterThanOrEqual(2);
      }

      // Solana runs the project's devnet per network, with a Token and a Token-2022 demo mint; the
      // faucet airdrops SOL and mints tokens to the owner's associated token account.
      expect(info.chains.solana).toMatchObject({
        networks: ['mainnet', 'testnet'],
        tokens: { spl: { USDT: expect.any(String), USDT22: expect.any(String) } },
      });
      const solana = (method: string, url: string, json?: unknown, network = 'mainnet') =>
        send(info.baseUrl, method, `/api/v2/solana${url}`, {
          token: info.token,
          headers: { 'x-network': network },
          ...(json === undefined ? {} : { json }),
        });
      const solAddress = (await solana('POST', '/addresses', {})).body.data[0].address as string;
      const airdrop = await solana('POST', '/faucet', { address: solAddress, amount: '1.5' }, 'testnet');
      expect(airdrop.status, airdrop.text).toBe(200);
      const usdt22 = info.chains.solana.tokens.spl.USDT22;
      const minted = await solana(
        'POST',
        '/faucet',
        { address: solAddress, amount: '7', contractaddress: usdt22 },
        'testnet',
      );
      expect(minted.body.data).toMatchObject({ symbol: 'USDT22', amount: '7' });
      // Both land within a slot or two (400 ms each).
      await waitFor(async () => {
        const balance = await solana('GET', `/balances/${solAddress}/spl/${usdt22}`, undefined, 'testnet');
        return balance.body.data?.balance === '7.000000' ? true : undefined;
      }, 10_000);
      const sol = await solana('GET', `/balances/${solAddress}`, undefined, 'testnet');
      expect(sol.body.data).toMatchObject({ balance: '1.500000000', lamports: '1500000000' });
      expect((await solana('GET', `/balances/${solAddress}`)).body.data.lamports).toBe('0');

      // Prices work offline from the local provider, for every listed coin.
      const prices = await send(
        info.baseUrl,
        'GET',
        '/api/v2/prices?symbols=BTC,ETH,TRX,SOL,BNB,POL,USDT,USDC&currency=eur',
        {
          token: info.token,
        },
      );
      expect(prices.status, prices.text).toBe(200);
      expect(prices.body.data).toHaveLength(8);
      const converted = await send(info.baseUrl, 'GET', '/api/v2/prices/convert?from=USDT&to=TRX&amount=25', {
        token: info.token,
      });
      expect(converted.body.data.result).toMatch(/^\d+(\.\d+)?$/);

      // A chain without a devnet is unsupported.
      const faucet = await send(info.baseUrl, 'POST', '/api/v2/dogecoin/faucet', {
        token: info.token,
        json: { address: 'x', amount: '1' },
      });
      expect(faucet.status).toBe(404);
      expect(faucet.body.message).toBe('Unsupported blockchain');

      const cli = await run(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'token', 'create', '--email', 'second@example.com'],
        {
          SANDBOX_DIR: dir,
        },
      );
      expect(cli.code).toBe(0);
      const second = await send(info.baseUrl, 'GET', '/api/account', { token: cli.stdout.trim() });
      expect(second.status).toBe(200);
      // A user the CLI makes on the sandbox is on the sandbox's plan, as the demo user is: not metered.
      expect(second.body.data.plan).toBe('SANDBOX');
      const check = await run(process.execPath, ['dist/src/cli/main.js', 'config', 'check'], {
        SANDBOX_DIR: dir,
      });
      expect(check.stdout).toContain(`sandbox: ${dir}, running at ${info.baseUrl}\n`);
      expect(check.stdout).toContain('(new users: sandbox)');
    } finally {
      process.kill(-sandbox.child.pid!, 'SIGINT');
    }
    // npm itself dies of the SIGINT as it does on Ctrl-C; what matters is that everything it started stops.
    await exited(sandbox.child, 20_000);
    await waitFor(() => (groupAlive(sandbox.child.pid!) ? undefined : true), 20_000);
    // The pipe's last chunks may reach this process just after the group is gone.
    await waitFor(() => (sandbox.output().includes('stopping the sandbox') ? true : undefined), 5_000);
    await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
    // A start takes its time on a busy machine: eighteen devnets (an anvil per EVM chain and network),
    // the gateway and its migrations.
  }, 420_000);
});
