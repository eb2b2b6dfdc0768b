import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../devnets/bitcoin/index.ts';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { MAINNET_GENESIS_HASH, type SolanaDevnet, startSolanaDevnet } from '../../devnets/solana/index.ts';
import { startTronDevnet, type TronDevnet } from '../../devnets/tron/index.ts';
import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { type BroadcastHoldProxy, startBroadcastHoldProxy } from '../helpers/broadcast-hold-proxy.ts';
import { send, TEST_KDF_ENV } from '../helpers/gateway.ts';
import { startGatewayProcess, tokenOnDatabase } from '../helpers/gateway-process.ts';
import { exited, freePort, waitFor } from '../helpers/processes.ts';

// One gateway process serving a devnet of every family, each behind a proxy that holds the node's first
// broadcast. A send per family goes out; once every broadcast is held (the history has each intent, the
// node has nothing yet), the process is killed with SIGKILL. The node then gets the transactions, and a
// new process settles each history row from the chain: the 201 its request would have answered.

const PASSWORD = 'correct horse battery';
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-send-crash-'));
let tron: TronDevnet;
let evm: EvmDevnet;
let solana: SolanaDevnet;
let bitcoin: BitcoinDevnet;
const proxies: BroadcastHoldProxy[] = [];

beforeAll(async () => {
  [tron, evm, solana, bitcoin] = await Promise.all([
    startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 }),
    startEvmDevnet({ chain: 'ethereum' }),
    startSolanaDevnet({ slotIntervalMs: null, genesisHash: MAINNET_GENESIS_HASH }),
    startBitcoinDevnet({ network: 'mainnet', blockIntervalMs: null }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all([tron?.close(), evm?.close(), solana?.close(), bitcoin?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe("kill -9 between a send's intent and the node's answer, on every family", () => {
  it('leaves a history row per send, each settled from the chain by the next process', async () => {
    const hold = async (target: string, isBroadcast: (path: string, body: string) => boolean) => {
      const proxy = await startBroadcastHoldProxy(target, isBroadcast);
      proxies.push(proxy);
      return proxy;
    };
    const families = [
      {
        chain: 'tron',
        proxy: await hold(tron.url, (p) => p.startsWith('/wallet/broadcast')),
        amount: '1',
        fund: (address: string) => tron.faucetTrx(address, 10_000_000n),
        afterForward: () => tron.mine(1),
      },
      {
        chain: 'ethereum',
        proxy: await hold(evm.url, (_, body) => body.includes('eth_sendRawTransaction')),
        amount: '0.01',
        fund: (address: string) => evm.faucetNative(address, 10n ** 18n),
        afterForward: async () => undefined,
      },
      {
        chain: 'solana',
        proxy: await hold(solana.url, (_, body) => body.includes('"sendTransaction"')),
        amount: '0.01',
        fund: (address: string) => solana.airdrop(address, 10n ** 9n),
        afterForward: async () => undefined,
      },
      {
        chain: 'bitcoin',
        proxy: await hold(bitcoin.url, (p) => /\/tx\/?$/.test(p)),
        amount: '0.0001',
        fund: async (address: string) => {
          await bitcoin.faucet(address, 1_000_000n);
          await bitcoin.mine(1);
        },
        afterForward: async () => undefined,
      },
    ] as const;

    const port = await freePort();
    const unserved = Object.fromEntries(
      servedChains().flatMap((chain) =>
        NETWORKS.map((network) => [
          `${chain.toUpperCase()}_${network.toUpperCase()}_URLS`,
          'http://127.0.0.1:1',
        ]),
      ),
    );
    const env: Record<string, string> = {
      ...unserved,
      ...Object.fromEntries(families.map((f) => [`${f.chain.toUpperCase()}_MAINNET_URLS`, f.proxy.url])),
      REQUIRED_CHAINS: families.map((f) => `${f.chain}:mainnet`).join(','),
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      MASTER_KEY: randomBytes(32).toString('base64'),
      PRICE_PROVIDERS: 'local',
      LOG_LEVEL: 'error',
      // The sends open sealed keys: at the test cost, as the in-process gateways do.
      ...TEST_KDF_ENV,
    };
    const token = await tokenOnDatabase(env, 'send-crash@example.com');

    const base = `http://127.0.0.1:${port}`;
    const start = () => startGatewayProcess(env, base, 60_000);
    const api = (method: string, chain: string, route: string, json?: unknown, key?: string) =>
      send(base, method, `/api/v2/${chain}${route}`, {
        token,
        ...(json === undefined ? {} : { json }),
        ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
      });

    let gateway = await start();
    try {
      const sends = await Promise.all(
        families.map(async (family) => {
          const created = await api('POST', family.chain, '/addresses', { password: PASSWORD });
          const to = await api('POST', family.chain, '/addresses', {});
          expect(created.status, created.text).toBe(201);
          const from = created.body.data[0].address as string;
          await family.fund(from);
          const body = { from, to: to.body.data[0].address, amount: family.amount, password: PASSWORD };
          // Its answer never comes: the process dies while the node's answer is held.
          void api('POST', family.chain, '/transactions', body, randomUUID()).catch(() => null);
          await family.proxy.held;
          return { family, from };
        }),
      );
      process.kill(gateway.child.pid!, 'SIGKILL');
      await exited(gateway.child, 10_000);

      // Each send's intent is in the history, without an answer: signed, and the node did not have it yet.
      const rowsOf = async () => {
        const ctx = await createContext(loadConfig(env), { logger: createLogger('silent') });
        try {
          return await ctx.store.db
            .selectFrom('transactions')
            .select(['blockchain', 'from', 'txid', 'http_status'])
            .orderBy('id')
            .execute();
        } finally {
          await closeContext(ctx);
        }
      };
      const intents = await rowsOf();
      for (const { family, from } of sends) {
        expect(intents.filter((r) => r.blockchain === family.chain && r.from === from)).toEqual([
          { blockchain: family.chain, from, txid: expect.any(String), http_status: null },
        ]);
      }

      for (const { family } of sends) {
        await family.proxy.forward();
        await family.afterForward();
      }
      gateway = await start();
      // The next process's settler looks at start: every row becomes the 201 it would have been.
      const settled = await waitFor(async () => {
        const rows = await rowsOf();
        return rows.every((r) => r.http_status === 201) ? rows : undefined;
      }, 60_000).catch(async (error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(await rowsOf())}\n${gateway.output()}`);
      });
      expect(settled.map((r) => r.txid)).toEqual(intents.map((r) => r.txid));
      for (const { family, from } of sends) {
        const history = await api('GET', family.chain, '/transactions?page=1');
        const row = history.body.data.find((r: { from: string }) => r.from === from);
        expect(row, family.chain).toMatchObject({ httpStatus: '201' });
        const txid = row.txid as string;
        // And the chain has it.
        const onChain = await api('GET', family.chain, `/transactions/${txid}`);
        expect(onChain.status, `${family.chain} ${onChain.text}`).toBe(200);
      }
    } finally {
      process.kill(gateway.child.pid!, 'SIGKILL');
      await exited(gateway.child, 10_000).catch(() => undefined);
    }
  }, 240_000);
});
