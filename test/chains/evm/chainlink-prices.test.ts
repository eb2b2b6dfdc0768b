import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import { EVM_CONTRACTS_DIR } from '../../../devnets/evm/solidity.ts';
import { EvmAdapter } from '../../../src/chains/evm/adapter.ts';
import { ChainRegistry } from '../../../src/chains/registry.ts';
import { AGGREGATOR_V3_ABI, type ChainlinkFeed, ChainlinkProvider } from '../../../src/prices/chainlink.ts';
import { formatDecimal } from '../../../src/prices/decimal.ts';
import { createPriceService } from '../../../src/prices/factory.ts';

/** devnets/contracts/PriceFeed.sol compiled with solc-js, as devnets/evm/solidity.ts compiles the others. */
async function compilePriceFeed(): Promise<{ abi: Abi; bytecode: Hex }> {
  const content = await readFile(join(EVM_CONTRACTS_DIR, 'PriceFeed.sol'), 'utf8');
  const solc = (await import('solc')).default as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'PriceFeed.sol': { content } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: 'paris',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const contract = output.contracts['PriceFeed.sol'].PriceFeed;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

let devnet: EvmDevnet;
let adapter: EvmAdapter;
let registry: ChainRegistry;
let feedAbi: Abi;
let feedBytecode: Hex;
let btcFeed: Address;
let eurFeed: Address;
let ethFeed: Address;

async function transact(to: Address | null, data: Hex): Promise<{ contractAddress: Address | null }> {
  const from = devnet.accounts[0]!.address;
  const hash = await devnet.rpc<Hex>('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data }]);
  for (let i = 0; i < 200; i++) {
    const receipt = await devnet.rpc<{ status: Hex; contractAddress: Address | null } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${hash} not mined`);
}

async function deployFeed(decimals: number, description: string, answer: bigint): Promise<Address> {
  const data = encodeDeployData({
    abi: feedAbi,
    bytecode: feedBytecode,
    args: [decimals, description, answer],
  });
  return getAddress((await transact(null, data)).contractAddress!);
}

async function setRound(feed: Address, answer: bigint, updatedAt: bigint): Promise<void> {
  await transact(
    feed,
    encodeFunctionData({ abi: feedAbi, functionName: 'setRoundData', args: [answer, updatedAt] }),
  );
}

const feed = (address: Address, extra: Partial<ChainlinkFeed> = {}): ChainlinkFeed => ({
  chain: 'ethereum',
  network: 'mainnet',
  address,
  ...extra,
});

beforeAll(async () => {
  const [started, compiled] = await Promise.all([startEvmDevnet({ chain: 'ethereum' }), compilePriceFeed()]);
  devnet = started;
  feedAbi = compiled.abi;
  feedBytecode = compiled.bytecode;
  adapter = new EvmAdapter({
    chain: 'ethereum',
    network: 'mainnet',
    endpoints: [{ url: devnet.url, headers: {} }],
    retries: 0,
  });
  registry = new ChainRegistry();
  registry.register(adapter);
  btcFeed = await deployFeed(8, 'BTC / USD', 6_718_733_589_366n);
  eurFeed = await deployFeed(8, 'EUR / USD', 108_230_000n);
  ethFeed = await deployFeed(18, 'ETH / USD', 3_492_817_821_764_500_000_000n);
}, 120_000);

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

describe('PriceFeed.sol speaks AggregatorV3Interface', () => {
  it('answers decimals(), description() and latestRoundData() through the adapter', async () => {
    const call = async (functionName: 'decimals' | 'description' | 'latestRoundData') => {
      const data = encodeFunctionData({ abi: AGGREGATOR_V3_ABI, functionName });
      const raw = await adapter.rpc.request<Hex>('eth_call', [{ to: btcFeed, data }, 'latest']);
      return decodeFunctionResult({ abi: AGGREGATOR_V3_ABI, functionName, data: raw });
    };
    expect(await call('decimals')).toBe(8);
    expect(await call('description')).toBe('BTC / USD');
    const [roundId, answer, startedAt, updatedAt, answeredInRound] = (await call(
      'latestRoundData',
    )) as readonly bigint[];
    expect(roundId).toBe(1n);
    expect(answer).toBe(6_718_733_589_366n);
    expect(answeredInRound).toBe(roundId);
    expect(startedAt).toBe(updatedAt);
    expect(Math.abs(Number(updatedAt) - Date.now() / 1000)).toBeLessThan(120);
  });
});

describe('ChainlinkProvider on anvil', () => {
  it('reads USD prices exactly, whatever the feed decimals', async () => {
    const provider = new ChainlinkProvider({
      feeds: { BTC: feed(btcFeed), 'ETH/USD': feed(ethFeed) },
      registry,
    });
    const quotes = await provider.quote(['BTC', 'ETH', 'SOL'], 'usd');
    expect(quotes.map((q) => [q.symbol, formatDecimal(q.price), q.source, q.stale, q.change24h])).toEqual([
      ['BTC', '67187.33589366', 'chainlink', false, null],
      ['ETH', '3492.8178217645', 'chainlink', false, null],
    ]);
    expect(provider.currencies).toEqual(new Set(['usd']));
  });

  it('prices in EUR through an EUR/USD feed', async () => {
    const provider = new ChainlinkProvider({
      feeds: { 'BTC/USD': feed(btcFeed), 'EUR/USD': feed(eurFeed) },
      registry,
    });
    expect(provider.currencies).toEqual(new Set(['usd', 'eur']));
    const [btc] = await provider.quote(['BTC'], 'eur');
    expect(formatDecimal(btc!.price)).toBe('62078.292426924143');
  });

  it('flags a round older than the threshold stale, and the service prefers a fresh source', async () => {
    const oldFeed = await deployFeed(8, 'SOL / USD', 17_254_219_353n);
    const threeHoursAgo = BigInt(Math.floor(Date.now() / 1000) - 3 * 3600);
    await setRound(oldFeed, 17_254_219_353n, threeHoursAgo);

    const feeds = { SOL: feed(oldFeed), BTC: feed(btcFeed) };
    const [sol] = await new ChainlinkProvider({ feeds, registry }).quote(['SOL'], 'usd');
    expect(sol).toMatchObject({ stale: true, updatedAt: new Date(Number(threeHoursAgo) * 1000) });
    // A threshold above the age: fresh.
    const lenient = new ChainlinkProvider({
      feeds: { SOL: feed(oldFeed, { maxAgeSeconds: 4 * 3600 }) },
      registry,
    });
    expect((await lenient.quote(['SOL'], 'usd'))[0]?.stale).toBe(false);

    const alone = createPriceService({ providers: ['chainlink'], chainlinkFeeds: feeds, registry });
    expect(await alone.price('SOL')).toMatchObject({
      price: '172.54219353',
      source: 'chainlink',
      stale: true,
    });
    const withBackup = createPriceService({
      providers: ['chainlink', 'local'],
      chainlinkFeeds: feeds,
      registry,
    });
    expect(await withBackup.price('SOL')).toMatchObject({ source: 'local', stale: false });
    expect(await withBackup.price('BTC')).toMatchObject({ source: 'chainlink', stale: false });

    // Updated now: fresh again.
    await transact(
      oldFeed,
      encodeFunctionData({ abi: feedAbi, functionName: 'setAnswer', args: [17_300_000_000n] }),
    );
    expect((await new ChainlinkProvider({ feeds, registry }).quote(['SOL'], 'usd'))[0]).toMatchObject({
      stale: false,
    });
  });

  it('fails over when a feed is not a contract, answers nonsense, or its chain is not configured', async () => {
    const zeroFeed = await deployFeed(8, 'TRX / USD', 0n);
    const noCode = '0x000000000000000000000000000000000000dEaD';
    const provider = new ChainlinkProvider({
      feeds: {
        TRX: feed(zeroFeed),
        USDT: feed(noCode),
        BNB: { chain: 'bsc', network: 'mainnet', address: btcFeed },
      },
      registry,
    });
    await expect(provider.quote(['TRX'], 'usd')).rejects.toThrow(/non-positive/);
    await expect(provider.quote(['USDT'], 'usd')).rejects.toThrow(/no contract code/);
    await expect(provider.quote(['BNB'], 'usd')).rejects.toThrow(/Unsupported blockchain/);
    const service = createPriceService({
      providers: ['chainlink', 'local'],
      chainlinkFeeds: { TRX: feed(zeroFeed), USDT: feed(noCode) },
      registry,
    });
    expect((await service.prices('TRX,USDT')).map((p) => p.source)).toEqual(['local', 'local']);
  });
});
