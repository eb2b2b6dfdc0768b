// Mining, reorgs, persistence and fee estimates, seen through both fronts of one devnet.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import { call, get, getJson, outputTo, postTx, rpcRaw, spend, testKey } from './helpers.ts';

const carol = testKey('chain.carol');
const dave = testKey('chain.dave');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a fresh devnet', () => {
  it('premines 101 blocks to the faucet and reports the regtest genesis on both fronts', async () => {
    const devnet = await startBitcoinDevnet();
    try {
      expect(devnet.height()).toBe(101);
      expect(devnet.network).toBe('regtest');
      expect(devnet.faucetAddress).toMatch(/^bcrt1q/);
      expect(devnet.faucetPrivateKey).toMatch(/^[0-9a-f]{64}$/);
      expect(devnet.coreUrl).toMatch(/^http:\/\/devnet:devnet@127\.0\.0\.1:\d+\/rpc$/);
      expect((await get(devnet.url, '/blocks/tip/height')).text).toBe('101');
      expect(await call(devnet.coreUrl, 'getblockcount')).toBe(101);
      const genesis = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
      expect((await get(devnet.url, '/block-height/0')).text).toBe(genesis);
      expect(await call(devnet.coreUrl, 'getblockhash', [0])).toBe(genesis);
      const info = await call<{ chain: string; blocks: number; bestblockhash: string }>(
        devnet.coreUrl,
        'getblockchaininfo',
      );
      expect(info).toMatchObject({
        chain: 'regtest',
        blocks: 101,
        bestblockhash: (await get(devnet.url, '/blocks/tip/hash')).text,
      });
      const stats = await getJson<{ chain_stats: { funded_txo_count: number; funded_txo_sum: number } }>(
        devnet.url,
        `/address/${devnet.faucetAddress}`,
      );
      expect(stats.chain_stats.funded_txo_count).toBe(101);
      expect(stats.chain_stats.funded_txo_sum).toBe(101 * 5_000_000_000);
    } finally {
      await devnet.close();
    }
  });

  it.each([
    ['mainnet', 'main', '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', /^bc1q/],
    ['testnet', 'test', '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943', /^tb1q/],
    ['testnet4', 'testnet4', '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043', /^tb1q/],
    ['signet', 'signet', '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6', /^tb1q/],
  ] as const)(
    'as %s: Core chain %s, genesis and address encoding',
    async (network, chainName, genesis, prefix) => {
      const devnet = await startBitcoinDevnet({ network });
      try {
        expect(devnet.faucetAddress).toMatch(prefix);
        expect((await get(devnet.url, '/block-height/0')).text).toBe(genesis);
        expect(await call<{ chain: string }>(devnet.coreUrl, 'getblockchaininfo')).toMatchObject({
          chain: chainName,
        });
        const other = network === 'mainnet' ? carol.address : 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
        expect(await get(devnet.url, `/address/${other}`)).toMatchObject({
          status: 400,
          text: 'Address on invalid network',
        });
      } finally {
        await devnet.close();
      }
    },
  );
});

describe('mining and reorgs', () => {
  it('mines by feerate, then a reorg returns the dropped transactions to the mempool', async () => {
    const devnet = await startBitcoinDevnet();
    try {
      const funding = await devnet.faucet(carol.address, 1_000_000n);
      await devnet.mine();
      const coin = { ...(await outputTo(devnet.url, funding, carol.script)), key: carol };
      const pay = spend([coin], [{ script: dave.script, value: 990_000n }]);
      expect((await postTx(devnet.url, pay.toHex())).status).toBe(200);
      const [hash] = await devnet.mine();
      const minedAt = devnet.height();
      const txids = await getJson<string[]>(devnet.url, `/block/${hash}/txids`);
      expect(txids.slice(1)).toEqual([pay.getId()]);
      await devnet.mine(2);
      const oldTip = (await get(devnet.url, '/blocks/tip/hash')).text;

      await devnet.reorg(3);
      expect(devnet.height()).toBe(minedAt + 3);
      expect(await getJson(devnet.url, `/tx/${pay.getId()}/status`)).toEqual({ confirmed: false });
      expect(await getJson(devnet.url, '/mempool/txids')).toEqual([pay.getId()]);
      expect(await call<string[]>(devnet.coreUrl, 'getrawmempool')).toEqual([pay.getId()]);
      // the old blocks are stale: readable, out of the best chain
      expect(await getJson(devnet.url, `/block/${hash}/status`)).toEqual({ in_best_chain: false });
      expect(await call<{ confirmations: number }>(devnet.coreUrl, 'getblockheader', [oldTip])).toMatchObject(
        {
          confirmations: -1,
        },
      );
      expect((await get(devnet.url, `/block-height/${minedAt}`)).text).not.toBe(hash);

      const [again] = await devnet.mine();
      expect(await getJson(devnet.url, `/tx/${pay.getId()}/status`)).toMatchObject({
        confirmed: true,
        block_hash: again,
      });
    } finally {
      await devnet.close();
    }
  });

  it('drops what a reorg made invalid (a spend of a vanished coinbase)', async () => {
    const devnet = await startBitcoinDevnet();
    try {
      const faucetKey = testKey(Buffer.from(devnet.faucetPrivateKey, 'hex'));
      const [hash] = await devnet.mine(100);
      const coinbase = (await getJson<string[]>(devnet.url, `/block/${hash}/txids`))[0] as string;
      // block `hash` is now 100 deep: its coinbase is spendable in the next block
      const tx = spend(
        [{ txid: coinbase, vout: 0, value: 5_000_000_000n, key: faucetKey }],
        [{ script: dave.script, value: 4_999_000_000n }],
      );
      expect((await postTx(devnet.url, tx.toHex())).status).toBe(200);
      await devnet.reorg(100);
      expect(await getJson(devnet.url, '/mempool/txids')).toEqual([]);
      expect((await get(devnet.url, `/tx/${tx.getId()}`)).status).toBe(404);
    } finally {
      await devnet.close();
    }
  });

  it('mines on a timer when blockIntervalMs is set', async () => {
    const devnet = await startBitcoinDevnet({ blockIntervalMs: 20 });
    try {
      await expect.poll(() => devnet.height(), { timeout: 5000 }).toBeGreaterThan(102);
    } finally {
      await devnet.close();
    }
  });
});

describe('persistence', () => {
  it('carries on from its snapshot file: heights, balances, mempool and fee estimates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'btc-devnet-'));
    dirs.push(dir);
    const snapshotFile = join(dir, 'chain.json');
    const first = await startBitcoinDevnet({ snapshotFile });
    const confirmed = await first.faucet(carol.address, 777_000n);
    await first.mine(3);
    const pending = await first.faucet(dave.address, 5_000n);
    first.setFeeEstimates({ '1': 42.5, '6': 10 });
    const height = first.height();
    const tip = (await get(first.url, '/blocks/tip/hash')).text;
    const carolBefore = await getJson(first.url, `/address/${carol.address}`);
    await first.close();

    const second = await startBitcoinDevnet({ snapshotFile });
    try {
      expect(second.height()).toBe(height);
      expect((await get(second.url, '/blocks/tip/hash')).text).toBe(tip);
      expect(await getJson(second.url, `/address/${carol.address}`)).toEqual(carolBefore);
      expect(await getJson(second.url, `/tx/${confirmed}/status`)).toMatchObject({ confirmed: true });
      expect(await getJson(second.url, '/mempool/txids')).toEqual([pending]);
      expect(await getJson(second.url, '/fee-estimates')).toEqual({ '1': 42.5, '6': 10 });
      // the chain goes on from there
      await second.mine();
      expect(second.height()).toBe(height + 1);
      expect(await getJson(second.url, `/tx/${pending}/status`)).toMatchObject({ confirmed: true });
    } finally {
      await second.close();
    }
    await expect(startBitcoinDevnet({ snapshotFile, network: 'mainnet' })).rejects.toThrow(
      /is regtest, not mainnet/,
    );
  });
});

describe('timed saves', () => {
  it('saves a block with transactions on the saveIntervalMs timer, before close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'btc-devnet-'));
    dirs.push(dir);
    const snapshotFile = join(dir, 'chain.json');
    const devnet = await startBitcoinDevnet({ snapshotFile, saveIntervalMs: 20 });
    try {
      await devnet.faucet(carol.address, 10_000n);
      await devnet.mine();
      const height = devnet.height();
      const savedHeight = () =>
        (JSON.parse(readFileSync(snapshotFile, 'utf8')) as { state: { blocks: unknown[] } }).state.blocks
          .length;
      await expect.poll(savedHeight, { timeout: 5000 }).toBe(height);
    } finally {
      await devnet.close();
    }
  });
});

describe('fee estimates', () => {
  it('answer /fee-estimates, /api/v1/fees/recommended and estimatesmartfee from one table', async () => {
    const devnet = await startBitcoinDevnet();
    try {
      devnet.setFeeEstimates({ '1': 25.5, '3': 12, '6': 8, '144': 1.5 });
      expect(await getJson(devnet.url, '/fee-estimates')).toEqual({ '1': 25.5, '3': 12, '6': 8, '144': 1.5 });
      expect(await getJson(devnet.url, '/api/v1/fees/recommended')).toEqual({
        fastestFee: 26,
        halfHourFee: 12,
        hourFee: 8,
        economyFee: 2,
        minimumFee: 1,
      });
      const reply = await call<{ feerate: number; blocks: number }>(devnet.coreUrl, 'estimatesmartfee', [2]);
      expect(reply).toEqual({ feerate: 0.00012, blocks: 3 });
      const raw = await rpcRaw(devnet.coreUrl, {
        method: 'estimatesmartfee',
        params: [1],
        id: 1,
      });
      expect(raw.text).toBe('{"result":{"feerate":0.00025500,"blocks":1},"error":null,"id":1}');
      expect(() => devnet.setFeeEstimates({ x: 1 })).toThrow();
    } finally {
      await devnet.close();
    }
  });
});
