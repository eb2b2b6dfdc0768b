import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmDevnet, startAnvil, startEvmDevnet } from '../../../devnets/evm/index.ts';
import type { EvmAdapter } from '../../../src/chains/evm/index.ts';
import { devnetAdapter } from './helpers.ts';

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    return response.ok;
  } catch {
    return false;
  }
}

describe('EVM devnet (anvil)', () => {
  let devnet: EvmDevnet;
  let adapter: EvmAdapter;

  beforeAll(async () => {
    devnet = await startEvmDevnet({ chain: 'bsc', network: 'testnet' });
    adapter = devnetAdapter('bsc', devnet.url, { network: 'testnet' });
  });

  afterAll(async () => {
    await adapter?.close();
    await devnet?.close();
  });

  it("copies the network's chain id and lists the tokens under BSC's segments too", async () => {
    expect(devnet.chainId).toBe(97);
    await adapter.checkNode();
    expect(devnet.tokens.bep20?.['USDT']).toBe(devnet.tokens.erc20.USDT);
    expect(devnet.tokens.bep721?.['NFT']).toBe(devnet.tokens.erc721.NFT);
    // BSC's base fee is 0, like the real chain's.
    expect((await adapter.getBlock('latest'))?.['baseFeePerGas']).toBe('0x0');
  });

  it('funds addresses with the native coin, USDT and NFTs from a dev account', async () => {
    const { address } = adapter.generateKey();
    const txid = await devnet.faucetNative(address, 123n);
    expect((await adapter.getTransaction(txid))?.['from']).toBe(devnet.faucetAccount.address.toLowerCase());
    expect(await adapter.getBalance(address)).toBe(123n);
    await devnet.faucetErc20(devnet.tokens.erc20.USDT, address, 1_000_000n);
    expect(await adapter.getErc20Balance(address, devnet.tokens.erc20.USDT)).toEqual({
      balance: 1_000_000n,
      decimals: 6,
    });
    const first = await devnet.faucetErc721(devnet.tokens.erc721.NFT, address);
    const second = await devnet.faucetErc721(devnet.tokens.erc721.NFT, address);
    expect(second).toBe(first + 1n);
    expect(await adapter.nftOwner(devnet.tokens.erc721.NFT, second)).toBe(address);
  });

  it('serves concurrent faucet calls', async () => {
    const addresses = Array.from({ length: 8 }, () => adapter.generateKey().address);
    await Promise.all(addresses.map((a) => devnet.faucetNative(a, 5n)));
    for (const a of addresses) expect(await adapter.getBalance(a)).toBe(5n);
  });

  it('mines on demand and reorganizes the last blocks, dropping their transactions', async () => {
    const head = await adapter.getBlockNumber();
    expect(await devnet.mine(3)).toBe(head + 3n);
    const { address } = adapter.generateKey();
    const txid = await devnet.faucetNative(address, 77n);
    const receipt = await adapter.getReceipt(txid);
    const height = String(receipt?.['blockNumber']);
    const before = await adapter.getBlock(height);
    expect(await adapter.getBalance(address)).toBe(77n);

    await devnet.reorg(2);
    const after = await adapter.getBlock(height);
    expect(after?.['number']).toBe(before?.['number']);
    expect(after?.['hash']).not.toBe(before?.['hash']);
    expect(await adapter.getReceipt(txid)).toBeNull();
    expect(await adapter.getBalance(address)).toBe(0n);
    expect(await adapter.getBlockNumber()).toBe(head + 4n);
  });
});

describe('EVM devnet options and lifecycle', () => {
  it('mines by interval when asked', async () => {
    const devnet = await startEvmDevnet({ chain: 'arbitrum', blockTime: 1 });
    try {
      expect(devnet.chainId).toBe(42161);
      const adapter = devnetAdapter('arbitrum', devnet.url);
      const start = await adapter.getBlockNumber();
      await new Promise((resolve) => setTimeout(resolve, 2_300));
      expect(await adapter.getBlockNumber()).toBeGreaterThanOrEqual(start + 2n);
      await adapter.close();
    } finally {
      await devnet.close();
    }
  });

  it('stops anvil on close()', async () => {
    const devnet = await startEvmDevnet({ chain: 'polygon', chainId: 31_337 });
    expect(devnet.chainId).toBe(31_337);
    expect(await answers(devnet.url)).toBe(true);
    await devnet.close();
    expect(await answers(devnet.url)).toBe(false);
    await devnet.close();
  });

  it('does not let anvil outlive a process killed with SIGKILL', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-anvil-orphan-'));
    const anvilModule = fileURLToPath(new URL('../../../devnets/evm/anvil.ts', import.meta.url));
    const script = path.join(dir, 'start.mts');
    writeFileSync(
      script,
      `import { startAnvil } from ${JSON.stringify(anvilModule)};\n` +
        'const anvil = await startAnvil({ chainId: 1 });\nconsole.log(anvil.url);\nsetInterval(() => {}, 1000);\n',
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL('../../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          const line = chunk.toString().trim();
          if (line.startsWith('http')) resolve(line);
        });
        child.once('exit', (code) => reject(new Error(`helper exited with ${code}`)));
      });
      expect(await answers(url)).toBe(true);
      child.kill('SIGKILL');
      let alive = true;
      for (let i = 0; i < 100 && alive; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        alive = await answers(url);
      }
      expect(alive).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a port that is taken', async () => {
    const first = await startAnvil({ chainId: 1 });
    try {
      await expect(startAnvil({ chainId: 1, port: first.port })).rejects.toThrow(
        /anvil exited before it was ready/,
      );
    } finally {
      await first.close();
    }
  });
});
