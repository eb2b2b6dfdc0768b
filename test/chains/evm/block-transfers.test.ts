import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import { TRANSFER_TOPIC } from '../../../src/chains/erc20-events.ts';
import { type EvmAdapter, EvmInvalidResponseError } from '../../../src/chains/evm/index.ts';
import type { FollowedBlock } from '../../../src/chains/follower.ts';
import type { ChainName } from '../../../src/chains/types.ts';
import { startNodeFaultProxy } from '../../fault/node-fault-proxy.ts';
import { devnetAdapter } from './helpers.ts';

const ETHER = 10n ** 18n;
const TOKEN_ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 tokenId)',
]);

/**
 * A contract without decimals(): any call emits Transfer(this, caller, 42) with 3 topics (ERC20-shaped).
 * Runtime: MSTORE(0, 42); LOG3(0, 32, TRANSFER_TOPIC, ADDRESS, CALLER); STOP. Init code copies it out.
 */
const ODD_TOKEN_CODE =
  `0x602e80600b6000396000f3602a60005233307f${TRANSFER_TOPIC.slice(2)}60206000a300` as Hex;

async function receipt(devnet: EvmDevnet, hash: Hex) {
  for (let i = 0; i < 200; i++) {
    const found = await devnet.rpc<{ status: Hex; contractAddress: Hex | null; blockNumber: Hex } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${hash} not mined`);
}

const hexValue = (n: bigint) => `0x${n.toString(16)}`;

describe('EvmAdapter.follower on a real anvil block', () => {
  let devnet: EvmDevnet;
  let adapter: EvmAdapter;
  let proxy: http.Server;
  let fallbackAdapter: EvmAdapter;
  const proxied: string[] = [];
  let blockNumber: bigint;
  const hashes: Record<'native' | 'erc20' | 'erc721' | 'reverted' | 'odd', Hex> = {} as never;
  let tokenId: bigint;
  let oddToken: string;
  const x = '0x00000000000000000000000000000000000000a1';
  const y = '0x00000000000000000000000000000000000000b2';
  const z = '0x00000000000000000000000000000000000000c3';

  beforeAll(async () => {
    devnet = await startEvmDevnet({ chain: 'ethereum' });
    adapter = devnetAdapter('ethereum', devnet.url);
    const [sender, broke, caller] = devnet.accounts;
    const usdt = devnet.tokens.erc20.USDT;
    const nft = devnet.tokens.erc721.NFT;
    await devnet.faucetErc20(usdt, sender!.address, 5_000_000n);
    tokenId = await devnet.faucetErc721(nft, sender!.address);
    const deployed = await receipt(
      devnet,
      await devnet.rpc<Hex>('eth_sendTransaction', [{ from: caller!.address, data: ODD_TOKEN_CODE }]),
    );
    oddToken = deployed.contractAddress!;

    // One block holding all five: pause the auto-miner, send, mine once.
    await devnet.rpc('evm_setAutomine', [false]);
    try {
      const send = (tx: Record<string, string>) => devnet.rpc<Hex>('eth_sendTransaction', [tx]);
      hashes.native = await send({ from: sender!.address, to: x, value: hexValue(ETHER) });
      hashes.erc20 = await send({
        from: sender!.address,
        to: usdt,
        data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [y, 1_500_000n] }),
        gas: hexValue(200_000n),
      });
      hashes.erc721 = await send({
        from: sender!.address,
        to: nft,
        data: encodeFunctionData({
          abi: TOKEN_ABI,
          functionName: 'transferFrom',
          args: [sender!.address, z, tokenId],
        }),
        gas: hexValue(200_000n),
      });
      // Reverts: no USDT balance, and ETH sent to a non-payable function. Neither part may be reported.
      hashes.reverted = await send({
        from: broke!.address,
        to: usdt,
        value: hexValue(2n * ETHER),
        data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [y, 1n] }),
        gas: hexValue(200_000n),
      });
      hashes.odd = await send({ from: caller!.address, to: oddToken, gas: hexValue(100_000n) });
      await devnet.rpc('evm_mine');
    } finally {
      await devnet.rpc('evm_setAutomine', [true]);
    }
    const mined = await Promise.all(Object.values(hashes).map((h) => receipt(devnet, h)));
    expect(new Set(mined.map((r) => r.blockNumber)).size).toBe(1);
    expect(mined.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1', '0x0', '0x1']);
    blockNumber = BigInt(mined[0]!.blockNumber);

    // A node without eth_getBlockReceipts: a proxy answering "method not found" for it, anvil for the rest.
    proxy = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', async () => {
        const call = JSON.parse(body) as { id: number; method: string };
        proxied.push(call.method);
        if (call.method === 'eth_getBlockReceipts') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: call.id,
              error: {
                code: -32601,
                message: 'the method eth_getBlockReceipts does not exist/is not available',
              },
            }),
          );
          return;
        }
        const upstream = await fetch(devnet.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        response.writeHead(upstream.status, { 'content-type': 'application/json' });
        response.end(await upstream.text());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    fallbackAdapter = devnetAdapter('ethereum', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
  }, 60_000);

  afterAll(async () => {
    await adapter?.close();
    await fallbackAdapter?.close();
    proxy?.close();
    await devnet?.close();
  });

  function expectBlock(block: FollowedBlock | null) {
    expect(block).not.toBeNull();
    const { sender, caller } = {
      sender: devnet.accounts[0]!.address.toLowerCase(),
      caller: devnet.accounts[2]!.address.toLowerCase(),
    };
    expect(block!.number).toBe(blockNumber);
    expect(block!.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(block!.parent.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const base = {
      chain: 'ethereum',
      network: 'mainnet',
      blockNumber,
      blockHash: block!.hash,
      time: block!.time,
    };
    expect(block!.transfers).toEqual([
      {
        ...base,
        txid: hashes.native,
        logIndex: 0,
        from: sender,
        to: x,
        contractAddress: null,
        tokenId: null,
        type: 'ETH',
        amountRaw: ETHER,
        decimals: 18,
      },
      {
        ...base,
        txid: hashes.erc20,
        logIndex: 1,
        from: sender,
        to: y,
        contractAddress: devnet.tokens.erc20.USDT.toLowerCase(),
        tokenId: null,
        type: 'ERC20',
        amountRaw: 1_500_000n,
        decimals: 6,
      },
      // ERC721's transferFrom clears the approval first (an Approval log at index 1).
      expect.objectContaining({
        txid: hashes.erc721,
        from: sender,
        to: z,
        contractAddress: devnet.tokens.erc721.NFT.toLowerCase(),
        tokenId: tokenId.toString(),
        type: 'ERC721',
        amountRaw: 1n,
        decimals: 0,
      }),
      expect.objectContaining({
        txid: hashes.odd,
        from: oddToken.toLowerCase(),
        to: caller,
        contractAddress: oddToken.toLowerCase(),
        type: 'ERC20',
        amountRaw: 42n,
        decimals: 0,
      }),
    ]);
    const logIndexes = block!.transfers.slice(1).map((t) => t.logIndex);
    expect(logIndexes).toEqual([...logIndexes].sort((a, b) => a - b));
    expect(new Set(logIndexes).size).toBe(3);
    expect(block!.transfers.some((t) => t.txid === hashes.reverted)).toBe(false);
  }

  it('reports the native, ERC20 and ERC721 transfers of the block, not the reverted transaction', async () => {
    const block = await blockAt(adapter, blockNumber);
    expectBlock(block);
    const header = await adapter.getBlock(blockNumber.toString());
    expect(block!.hash).toBe(header!['hash']);
    expect(block!.parent).toEqual({ number: blockNumber - 1n, hash: header!['parentHash'] });
    expect(block!.time.getTime()).toBe(Number(BigInt(header!['timestamp'] as string)) * 1000);
  });

  it('reads the same block through per-transaction receipts when the node lacks eth_getBlockReceipts', async () => {
    const block = await blockAt(fallbackAdapter, blockNumber);
    expectBlock(block);
    expect(block).toEqual(await blockAt(adapter, blockNumber));
    await blockAt(fallbackAdapter, blockNumber);
    // Asked once, then remembered; five receipts per read.
    expect(proxied.filter((m) => m === 'eth_getBlockReceipts')).toHaveLength(1);
    expect(proxied.filter((m) => m === 'eth_getTransactionReceipt')).toHaveLength(10);
  });

  it('takes a garbled decimals() answer for the node’s fault: the block fails and reads right later', async () => {
    // A node or middlebox answering eth_call with a result of the wrong type (a number, not hex data).
    const faulty = await startNodeFaultProxy({ upstream: devnet.url, seed: 1 });
    const reader = devnetAdapter('ethereum', faulty.url);
    try {
      faulty.setFault({ kind: 'wrong-shape' }, { methods: ['eth_call'] });
      const usdt = devnet.tokens.erc20.USDT;
      await expect(reader.follower.read(blockNumber)).rejects.toThrow(EvmInvalidResponseError);
      await expect(reader.getErc20Balance(y, usdt)).rejects.toMatchObject({ status: 502 });
      faulty.heal();
      // Not remembered as a token without decimals: read again, the block has its 6.
      expectBlock(await blockAt(reader, blockNumber));
      expect(await reader.getErc20Balance(y, usdt)).toEqual({ balance: 1_500_000n, decimals: 6 });
    } finally {
      await reader.close();
      await faulty.close();
    }
  });

  it('answers not-yet for a block the node does not have yet, and an empty list for an empty block', async () => {
    const head = await adapter.getBlockNumber();
    expect(await adapter.follower.read(head + 1n)).toEqual({ kind: 'not-yet' });
    const empty = await devnet.mine(1);
    expect((await blockAt(adapter, empty))!.transfers).toEqual([]);
  });
});

describe.each([
  ['bsc', 'BNB', 'BEP20', 'BEP721'],
  ['polygon', 'POL', 'ERC20', 'ERC721'],
  ['arbitrum', 'ETH', 'ERC20', 'ERC721'],
] as [ChainName, string, string, string][])(
  'followed block transfer types on %s',
  (chain, native, fungible, nft) => {
    let devnet: EvmDevnet;
    let adapter: EvmAdapter;

    beforeAll(async () => {
      devnet = await startEvmDevnet({ chain });
      adapter = devnetAdapter(chain, devnet.url);
    }, 60_000);

    afterAll(async () => {
      await adapter?.close();
      await devnet?.close();
    });

    it('names each transfer with the chain’s own type', async () => {
      const to = '0x00000000000000000000000000000000000000d4';
      const blockOf = async (hash: Hex) =>
        (await blockAt(adapter, BigInt((await receipt(devnet, hash)).blockNumber)))!;
      const coin = await blockOf(await devnet.faucetNative(to, 7n));
      expect(coin.transfers).toMatchObject([{ chain, type: native, to, amountRaw: 7n, decimals: 18 }]);
      const token = await blockOf(await devnet.faucetErc20(devnet.tokens.erc20.USDT, to, 9n));
      expect(token.transfers).toMatchObject([
        {
          chain,
          type: fungible,
          to,
          amountRaw: 9n,
          decimals: 6,
          from: '0x0000000000000000000000000000000000000000',
        },
      ]);
      const id = await devnet.faucetErc721(devnet.tokens.erc721.NFT, to);
      const minted = await blockAt(adapter, await adapter.getBlockNumber());
      expect(minted!.transfers).toMatchObject([
        { chain, type: nft, to, tokenId: id.toString(), amountRaw: 1n, decimals: 0 },
      ]);
    });
  },
);

/** The block the follower reads at `height`; null when it reads none there. */
async function blockAt(adapter: EvmAdapter, height: bigint): Promise<FollowedBlock | null> {
  const reading = await adapter.follower.read(height);
  return reading.kind === 'block' ? reading.block : null;
}
