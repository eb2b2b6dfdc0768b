import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEvmDevnet } from '../../devnets/evm/index.ts';
import { waitFor } from '../helpers/processes.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-evm-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const hexNumber = (hex: string) => Number(BigInt(hex));

describe('EVM devnet with a state folder', () => {
  it('carries on its chain after close: balances, transactions, tokens (not redeployed) and block numbers', async () => {
    const stateDir = path.join(dir, 'restart');
    const first = await startEvmDevnet({ chain: 'polygon', network: 'testnet', stateDir });
    let txid: string;
    let head: number;
    try {
      txid = await first.faucetNative(RECIPIENT, 10n ** 18n);
      await first.faucetErc20(first.tokens.erc20.USDT, RECIPIENT, 5_000_000n);
      head = hexNumber(await first.rpc<string>('eth_blockNumber'));
    } finally {
      await first.close();
    }
    expect(readdirSync(stateDir).sort()).toEqual(['head.txt', 'state.json.gz', 'tokens.json']);

    const second = await startEvmDevnet({ chain: 'polygon', network: 'testnet', stateDir });
    try {
      expect(second.tokens).toEqual(first.tokens);
      expect(hexNumber(await second.rpc<string>('eth_blockNumber'))).toBe(head);
      expect(BigInt(await second.rpc<string>('eth_getBalance', [RECIPIENT, 'latest']))).toBe(10n ** 18n);
      const receipt = await second.rpc<{ status: string } | null>('eth_getTransactionReceipt', [txid]);
      expect(receipt?.status).toBe('0x1');
      // Not redeployed: the faucet account made exactly its four transactions.
      expect(
        hexNumber(
          await second.rpc<string>('eth_getTransactionCount', [second.faucetAccount.address, 'latest']),
        ),
      ).toBe(4);
      expect(existsSync(path.join(stateDir, 'load-state.json'))).toBe(false);
      // The chain goes on from there.
      await second.faucetErc20(second.tokens.erc20.USDT, RECIPIENT, 1n);
      expect(hexNumber(await second.rpc<string>('eth_blockNumber'))).toBe(head + 1);
    } finally {
      await second.close();
    }
  });

  it('refuses to carry on from a chain anvil did not load: its head is below the saved one', async () => {
    const stateDir = path.join(dir, 'unloaded');
    const first = await startEvmDevnet({ chain: 'polygon', network: 'testnet', stateDir });
    await first.close();
    // As if the dump had been taken far ahead of what anvil comes up with.
    writeFileSync(path.join(stateDir, 'head.txt'), '1000000\n');
    await expect(startEvmDevnet({ chain: 'polygon', network: 'testnet', stateDir })).rejects.toThrow(
      /anvil came up at block \d+, below the saved chain's head 1000000/,
    );
    expect(existsSync(path.join(stateDir, 'load-state.json'))).toBe(false);
  });

  it('mixed mining: a transaction is mined at once, and blocks come on the interval with none', async () => {
    const devnet = await startEvmDevnet({ chain: 'ethereum', blockTime: 3, mixedMining: true });
    try {
      const before = hexNumber(await devnet.rpc<string>('eth_blockNumber'));
      const started = Date.now();
      const txid = await devnet.faucetNative(RECIPIENT, 1n);
      // Well before the next interval block.
      expect(Date.now() - started).toBeLessThan(2_000);
      const mined = await devnet.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', [txid]);
      expect(hexNumber(mined.blockNumber)).toBeGreaterThan(before);
      const idle = hexNumber(await devnet.rpc<string>('eth_blockNumber'));
      await waitFor(
        async () => (hexNumber(await devnet.rpc<string>('eth_blockNumber')) > idle ? true : undefined),
        10_000,
      );
    } finally {
      await devnet.close();
    }
  });

  it('a state without its tokens beside it is refused, naming --reset', async () => {
    const stateDir = path.join(dir, 'no-tokens');
    const devnet = await startEvmDevnet({ chain: 'bsc', stateDir });
    await devnet.close();
    unlinkSync(path.join(stateDir, 'tokens.json'));
    await expect(startEvmDevnet({ chain: 'bsc', stateDir })).rejects.toThrow(/--reset/);
  });
});
