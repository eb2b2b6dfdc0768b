import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import {
  type EvmAdapter,
  EvmChainMismatchError,
  EvmContractError,
  EvmInputError,
  EvmInsufficientFundsError,
  EvmRevertError,
  type EvmTxOverrides,
  evmChain,
  evmFamily,
  recoverSender,
} from '../../../src/chains/evm/index.ts';
import type { ChainName } from '../../../src/chains/types.ts';
import { devnetAdapter } from './helpers.ts';

const GWEI = 1_000_000_000n;
const ETHER = 10n ** 18n;

type Receipt = { status: Hex; effectiveGasPrice: Hex; gasUsed: Hex; type: Hex; logs: unknown[] };

async function mined(adapter: EvmAdapter, hash: string): Promise<Receipt> {
  for (let i = 0; i < 200; i++) {
    const receipt = await adapter.getReceipt(hash);
    if (receipt) return receipt as unknown as Receipt;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${hash} not mined`);
}

describe.each(['ethereum', 'bsc', 'polygon', 'arbitrum'] as ChainName[])(
  'EvmAdapter on %s (real anvil)',
  (chain) => {
    const config = evmChain(chain);
    let devnet: EvmDevnet;
    let adapter: EvmAdapter;

    beforeAll(async () => {
      devnet = await startEvmDevnet({ chain });
      adapter = devnetAdapter(chain, devnet.url);
    });

    afterAll(async () => {
      await adapter?.close();
      await devnet?.close();
    });

    async function fundedKey(wei = 10n * ETHER) {
      const key = adapter.generateKey();
      await devnet.faucetNative(key.address, wei);
      return key;
    }

    it('runs with the real chain id and checks it', async () => {
      expect(devnet.chainId).toBe(config.networks.mainnet.chainId);
      expect(await adapter.getChainId()).toBe(config.networks.mainnet.chainId);
      await expect(adapter.checkNode()).resolves.toBeUndefined();
      expect(adapter.nativeSymbol).toBe(config.nativeSymbol);
      expect(Object.keys(devnet.tokens)).toContain(config.tokenSegments.fungible);
    });

    it('serves a viem client through its NodeClient transport', async () => {
      const client = createPublicClient({ transport: await adapter.rpc.transport() });
      expect(await client.getChainId()).toBe(devnet.chainId);
      expect(await client.getBlockNumber()).toBe(await adapter.getBlockNumber());
    });

    it('names chain, network, expected and actual id when the node is on another chain', async () => {
      const testnet = devnetAdapter(chain, devnet.url, { network: 'testnet' });
      try {
        const error = await testnet.checkNode().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(EvmChainMismatchError);
        const expected = config.networks.testnet.chainId;
        const actual = config.networks.mainnet.chainId;
        expect((error as Error).message).toBe(
          `${chain} testnet node reports chain id ${actual}, expected ${expected}`,
        );
        expect(error).toMatchObject({ expected, actual, status: 502 });
      } finally {
        await testnet.close();
      }
    });

    it('reads blocks, transactions and receipts raw, and null for unknown ones', async () => {
      const head = await adapter.getBlockNumber();
      expect(head).toBeGreaterThan(0n);
      const block = await adapter.getBlock(head.toString());
      expect(block?.['number']).toBe(`0x${head.toString(16)}`);
      expect(await adapter.getBlock(String(block?.['hash']))).toEqual(block);
      expect(await adapter.getBlock('99999999')).toBeNull();
      expect(await adapter.getTransaction(`0x${'11'.repeat(32)}`)).toBeNull();
      expect(await adapter.getReceipt(`0x${'11'.repeat(32)}`)).toBeNull();
      await expect(adapter.getBlock('not-a-block')).rejects.toBeInstanceOf(EvmInputError);
    });

    it('builds, signs and broadcasts a native transfer; balances move', async () => {
      const sender = await fundedKey();
      const recipient = adapter.generateKey().address;
      const tx = await adapter.buildTransfer(sender.address, recipient.toLowerCase(), 12_345n);
      expect(tx).toMatchObject({
        chainId: devnet.chainId,
        nonce: 0,
        to: recipient,
        value: 12_345n,
        data: '0x',
        gas: 21_000n,
      });
      expect(tx.type).toBe(config.feeModel);
      expect(tx.serialized).toMatch(/^0x/);
      const signed = await adapter.sign(tx, sender.privateKey);
      expect(await recoverSender(signed.raw)).toBe(sender.address);
      const hash = await adapter.broadcast(signed.raw);
      expect(hash).toBe(signed.hash);
      const receipt = await mined(adapter, hash);
      expect(receipt.status).toBe('0x1');
      expect(await adapter.getBalance(recipient)).toBe(12_345n);
      const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      expect(await adapter.getBalance(sender.address)).toBe(10n * ETHER - 12_345n - fee);
      // Sending it again is not an error: the node already has it.
      expect(await adapter.broadcast(signed.raw)).toBe(hash);
      const fetched = await adapter.getTransaction(hash);
      expect(fetched?.['hash']).toBe(hash);
    });

    it('transfers ERC20 tokens and reads token info', async () => {
      const usdt = devnet.tokens.erc20.USDT;
      expect(devnet.tokens[config.tokenSegments.fungible]?.['USDT']).toBe(usdt);
      const sender = await fundedKey();
      const recipient = adapter.generateKey().address;
      await devnet.faucetErc20(usdt, sender.address, 5_000_000n);
      expect(await adapter.getErc20Balance(sender.address, usdt)).toEqual({
        balance: 5_000_000n,
        decimals: 6,
      });
      const info = await adapter.getErc20Info(usdt.toLowerCase());
      expect(info).toMatchObject({ address: usdt, symbol: 'USDT', name: 'Tether USD', decimals: 6 });
      expect(info.totalSupply).toBeGreaterThanOrEqual(5_000_000n);

      const tx = await adapter.buildErc20Transfer(sender.address, recipient, usdt, 1_250_000n);
      expect(tx.to).toBe(usdt);
      expect(tx.value).toBe(0n);
      const hash = await adapter.broadcast((await adapter.sign(tx, sender.privateKey)).raw);
      expect((await mined(adapter, hash)).status).toBe('0x1');
      expect((await adapter.getErc20Balance(recipient, usdt)).balance).toBe(1_250_000n);
      expect((await adapter.getErc20Balance(sender.address, usdt)).balance).toBe(3_750_000n);
    });

    it('says so when a contract is not an ERC20', async () => {
      const eoa = adapter.generateKey().address;
      await expect(adapter.getErc20Info(eoa)).rejects.toBeInstanceOf(EvmContractError);
      await expect(adapter.getErc20Info(eoa)).rejects.toThrow(/no contract code/);
      // The NFT contract has name() and symbol() but no decimals().
      await expect(adapter.getErc20Info(devnet.tokens.erc721.NFT)).rejects.toBeInstanceOf(EvmContractError);
    });

    it('transfers an ERC721 token and reads owner and URI', async () => {
      const nft = devnet.tokens.erc721.NFT;
      const sender = await fundedKey();
      const recipient = adapter.generateKey().address;
      const tokenId = await devnet.faucetErc721(nft, sender.address);
      expect(await adapter.nftOwner(nft, tokenId)).toBe(sender.address);
      expect(await adapter.nftUri(nft, tokenId)).toBe(`https://devnet.switchyard.invalid/nft/${tokenId}`);
      const tx = await adapter.buildErc721Transfer(sender.address, recipient, nft, tokenId);
      const hash = await adapter.broadcast((await adapter.sign(tx, sender.privateKey)).raw);
      expect((await mined(adapter, hash)).status).toBe('0x1');
      expect(await adapter.nftOwner(nft, tokenId)).toBe(recipient);
      await expect(adapter.nftOwner(nft, 999_999n)).rejects.toThrow(/owner query for nonexistent token/);
    });

    it('gives sane fee defaults for the chain', async () => {
      const fees = await adapter.getFeeDefaults();
      const gasPrice = await adapter.getGasPrice();
      expect(gasPrice).toBeGreaterThan(0n);
      if (config.feeModel === 'legacy') {
        expect(fees).toEqual({ type: 'legacy', gasPrice });
        return;
      }
      if (fees.type !== 'eip1559') throw new Error('expected EIP-1559 fees');
      const latest = await adapter.getBlock('latest');
      const baseFee = BigInt(String(latest?.['baseFeePerGas']));
      expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(baseFee + fees.maxPriorityFeePerGas);
      expect(fees.maxFeePerGas).toBeLessThanOrEqual(3n * baseFee + fees.maxPriorityFeePerGas + GWEI);
      if (chain === 'arbitrum') expect(fees.maxPriorityFeePerGas).toBe(0n);
      if (chain === 'polygon') expect(fees.maxPriorityFeePerGas).toBeGreaterThanOrEqual(25n * GWEI);
      if (chain === 'ethereum') expect(fees.maxPriorityFeePerGas).toBeGreaterThan(0n);
    });

    it('respects every caller override and the node takes the result', async () => {
      const sender = await fundedKey();
      const recipient = adapter.generateKey().address;

      const legacy = await adapter.buildTransfer(sender.address, recipient, 1n, {
        gasprice: 7n * GWEI,
        gas: 30_000n,
        data: '0xcafe',
      });
      expect(legacy).toMatchObject({
        type: 'legacy',
        gasPrice: 7n * GWEI,
        gas: 30_000n,
        data: '0xcafe',
        nonce: 0,
      });

      const dynamic = await adapter.buildTransfer(sender.address, recipient, 2n, {
        maxFeePerGas: 90n * GWEI,
        maxPriorityFeePerGas: 30n * GWEI,
        nonce: 1,
      });
      expect(dynamic).toMatchObject({
        type: 'eip1559',
        maxFeePerGas: 90n * GWEI,
        maxPriorityFeePerGas: 30n * GWEI,
        nonce: 1,
      });

      /** A transfer given one of the two EIP-1559 fees: the build must be EIP-1559 and fill in the other. */
      const oneFeeGiven = async (amount: bigint, fees: EvmTxOverrides) => {
        const tx = await adapter.buildTransfer(sender.address, recipient, amount, fees);
        if (tx.type !== 'eip1559') throw new Error('expected EIP-1559');
        return tx;
      };
      const tipOnly = await oneFeeGiven(3n, { maxPriorityFeePerGas: 26n * GWEI, nonce: 2 });
      expect(tipOnly.maxPriorityFeePerGas).toBe(26n * GWEI);
      // BSC's base fee is 0: the cap is the tip itself there.
      expect(tipOnly.maxFeePerGas).toBeGreaterThanOrEqual(26n * GWEI);

      const capOnly = await oneFeeGiven(4n, { maxFeePerGas: 95n * GWEI, nonce: 3 });
      expect(capOnly.maxFeePerGas).toBe(95n * GWEI);
      expect(capOnly.maxPriorityFeePerGas).toBeLessThanOrEqual(95n * GWEI);

      const memo = await adapter.buildErc20Transfer(sender.address, recipient, devnet.tokens.erc20.USDT, 0n, {
        data: '0xdeadbeef',
        nonce: 4,
      });
      expect(memo.data.endsWith('deadbeef')).toBe(true);

      for (const tx of [legacy, dynamic, tipOnly, capOnly, memo]) {
        const hash = await adapter.broadcast((await adapter.sign(tx, sender.privateKey)).raw);
        const receipt = await mined(adapter, hash);
        expect(receipt.status).toBe('0x1');
        expect(receipt.type).toBe(tx.type === 'legacy' ? '0x0' : '0x2');
      }
      const first = await adapter.getTransaction((await adapter.sign(legacy, sender.privateKey)).hash);
      expect(first).toMatchObject({
        gas: '0x7530',
        gasPrice: `0x${(7n * GWEI).toString(16)}`,
        input: '0xcafe',
      });

      await expect(
        adapter.buildTransfer(sender.address, recipient, 1n, { gasprice: 1n, maxFeePerGas: 2n }),
      ).rejects.toThrow(/cannot be combined/);
      await expect(
        adapter.buildTransfer(sender.address, recipient, 1n, { maxFeePerGas: 1n, maxPriorityFeePerGas: 2n }),
      ).rejects.toBeInstanceOf(EvmInputError);
      await expect(
        adapter.buildTransfer(sender.address, recipient, 1n, { gas: 20_000n }),
      ).rejects.toBeInstanceOf(EvmInputError);
    });

    it("translates insufficient funds, keeping the node's message, as a 422", async () => {
      const sender = await fundedKey(ETHER / 1000n);
      const tx = await adapter.buildTransfer(sender.address, adapter.generateKey().address, ETHER);
      const signed = await adapter.sign(tx, sender.privateKey);
      const error = await adapter.broadcast(signed.raw).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EvmInsufficientFundsError);
      expect((error as Error).message).toMatch(/^insufficient funds for gas \* price \+ value/i);
      expect((error as EvmInsufficientFundsError).status).toBe(422);
    });

    it('decodes a revert reason', async () => {
      const sender = await fundedKey();
      const error = await adapter
        .buildErc20Transfer(sender.address, adapter.generateKey().address, devnet.tokens.erc20.USDT, 1n)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(EvmRevertError);
      expect((error as EvmRevertError).reason).toBe('ERC20: transfer amount exceeds balance');
      expect((error as Error).message).toBe('execution reverted: ERC20: transfer amount exceeds balance');
    });

    it('refuses a transaction built for another chain or signed with another key', async () => {
      const sender = await fundedKey();
      const tx = await adapter.buildTransfer(sender.address, sender.address, 1n);
      await expect(adapter.sign({ ...tx, chainId: 5 }, sender.privateKey)).rejects.toBeInstanceOf(
        EvmInputError,
      );
      await expect(adapter.sign(tx, adapter.generateKey().privateKey)).rejects.toThrow(/does not belong to/);
    });
  },
);

describe('EvmAdapter failover', () => {
  let devnet: EvmDevnet;
  let flaky: Server;
  let flakyUrl: string;

  beforeAll(async () => {
    devnet = await startEvmDevnet({ chain: 'ethereum' });
    // A node that answers every request with 503.
    flaky = createServer((_req, res) => {
      res.writeHead(503).end('overloaded');
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    flakyUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => flaky?.close(resolve));
    await devnet?.close();
  });

  it('serves reads and sends through the next endpoint when the first is dead or failing', async () => {
    // Port 1 refuses connections; the 503 server answers but fails.
    const adapter = devnetAdapter('ethereum', ['http://127.0.0.1:1', flakyUrl, devnet.url]);
    try {
      await adapter.checkNode();
      expect(await adapter.getBlockNumber()).toBeGreaterThan(0n);
      const sender = adapter.generateKey();
      await devnet.faucetNative(sender.address, ETHER);
      const tx = await adapter.buildTransfer(sender.address, sender.address, 1n);
      const hash = await adapter.broadcast((await adapter.sign(tx, sender.privateKey)).raw);
      expect((await mined(adapter, hash)).status).toBe('0x1');
    } finally {
      await adapter.close();
    }
  });

  it('lists the four chains as families with public defaults', () => {
    for (const chain of ['ethereum', 'bsc', 'polygon', 'arbitrum'] as const) {
      const family = evmFamily.chains[chain];
      if (family === undefined) throw new Error(`${chain} is not in the EVM family`);
      expect(family.defaults.mainnet?.length).toBeGreaterThan(0);
      expect(family.defaults.testnet?.length).toBeGreaterThan(0);
      for (const endpoint of [...(family.defaults.mainnet ?? []), ...(family.defaults.testnet ?? [])]) {
        expect(endpoint.url).toMatch(/^https:\/\//);
      }
    }
  });
});
