// The TON devnet as the sandbox runs it: the network's global id, the demo USDT, and a faucet that pays
// TON and mints USDT to an address of the network, answering the receiving transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeClient } from '../../../src/chains/node-client.ts';
import type { RunningDevnet } from '../../../src/chains/sandbox-devnet.ts';
import { tonKeyFromSeed } from '../../../src/chains/ton/keys.ts';
import { tonNetworkProbe } from '../../../src/chains/ton/probe.ts';
import { startTonSandboxDevnet } from '../../../src/chains/ton/sandbox-devnet.ts';
import { Toncenter } from '../../../src/chains/ton/toncenter.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-ton-sandbox-'));
let devnet: RunningDevnet;
let client: NodeClient;

beforeAll(async () => {
  devnet = await startTonSandboxDevnet('testnet', dir, { evmBlockTime: 0, saveIntervalMs: 0 });
  client = new NodeClient({ chain: 'ton', network: 'testnet', endpoints: devnet.endpoints });
});

afterAll(async () => {
  await client?.close();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the TON sandbox devnet', () => {
  it('passes the network check for its network, and lists the demo USDT', async () => {
    expect(await tonNetworkProbe(client, 'testnet', {})).toMatchObject({ matches: true });
    expect(devnet.tokens['jetton']?.['USDT']).toMatch(/^kQ[A-Za-z0-9_-]{46}$/);
  });

  it('pays TON and mints USDT to a testnet address, answering the transaction; refuses a mainnet one', async () => {
    const { address } = tonKeyFromSeed(Buffer.alloc(32, 21), 'testnet');
    const paid = await devnet.faucet.fund({ address, amount: '2.5' });
    expect(paid).toMatchObject({ address, amount: '2.5', symbol: 'TON', contractaddress: null });
    expect(paid.txid).toMatch(/^[0-9a-f]{64}$/);
    const toncenter = new Toncenter(client);
    expect((await toncenter.account(address)).balance).toBe(2_500_000_000n);
    // The txid is the payment's, as its webhook reports it: the faucet's external message, which it started.
    expect(await toncenter.transactionsByMessage(paid.txid!, 'in')).toHaveLength(1);
    const usdt = devnet.tokens['jetton']!['USDT']!;
    const minted = await devnet.faucet.fund({ address, amount: 12, contractaddress: usdt });
    expect(minted).toMatchObject({ symbol: 'USDT', amount: '12', contractaddress: usdt });
    const mainnetForm = tonKeyFromSeed(Buffer.alloc(32, 21), 'mainnet').address;
    await expect(devnet.faucet.fund({ address: mainnetForm, amount: '1' })).rejects.toMatchObject({
      status: 422,
    });
    await expect(
      devnet.faucet.fund({ address, amount: '1', contractaddress: mainnetForm }),
    ).rejects.toMatchObject({ status: 422 });
  });
});
