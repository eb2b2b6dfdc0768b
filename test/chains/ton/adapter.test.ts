import { Address } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { NodeClient } from '../../../src/chains/node-client.ts';
import { TonAdapter } from '../../../src/chains/ton/adapter.ts';
import { tonKeyFromSeed } from '../../../src/chains/ton/keys.ts';
import { tonHeadProbe, tonNetworkProbe } from '../../../src/chains/ton/probe.ts';
import { newWallet, sendBoc, transferBoc, walletInfo } from '../../devnets/ton/helpers.ts';

let devnet: TonDevnet;
let adapter: TonAdapter;

beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null });
  adapter = new TonAdapter({ network: 'mainnet', endpoints: [{ url: devnet.url, headers: {} }], retries: 0 });
});

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

/** The raw form webhooks compare. */
const comparable = (address: string) => {
  const parsed = Address.parse(address);
  return `${parsed.workChain}:${parsed.hash.toString('hex')}`;
};

describe('the TON adapter on the devnet', () => {
  it('reads the head and tells the network by the global id', async () => {
    const client = new NodeClient({ chain: 'ton', network: 'mainnet', endpoints: [{ url: devnet.url }] });
    try {
      const head = await tonHeadProbe(client)();
      expect(head).toBe(await adapter.getBlockNumber());
      expect(await tonNetworkProbe(client, 'mainnet', {})).toMatchObject({ matches: true });
      expect(await tonNetworkProbe(client, 'testnet', {})).toMatchObject({
        matches: false,
        found: 'global id -239 (mainnet)',
      });
    } finally {
      await client.close();
    }
  });

  it("follows a faucet payment into a key's wallet, with its parent, and reads the balance", async () => {
    const pair = tonKeyFromSeed(Buffer.alloc(32, 9), 'mainnet');
    const before = await adapter.getBlockNumber();
    await devnet.fund(pair.address, 1_500_000_000n);
    const head = await adapter.getBlockNumber();
    expect(head).toBeGreaterThan(before);
    let found = null;
    for (let height = before + 1n; height <= head; height++) {
      const reading = await adapter.follower.read(height);
      expect(reading.kind).toBe('block');
      if (reading.kind !== 'block') continue;
      const previous = await adapter.follower.read(height - 1n);
      expect(previous.kind === 'block' && previous.block.hash).toBe(reading.block.parent.hash);
      expect(reading.block.parent.number).toBe(height - 1n);
      found ??= reading.block.transfers.find((t) => t.to === comparable(pair.address)) ?? null;
    }
    expect(found).toMatchObject({
      chain: 'ton',
      network: 'mainnet',
      type: 'TON',
      from: comparable(devnet.faucet.address),
      contractAddress: null,
      amountRaw: 1_500_000_000n,
      decimals: 9,
      logIndex: 0,
    });
    expect(found?.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await adapter.getBalance(pair.address)).toBe(1_500_000_000n);
    expect(await adapter.follower.read(head + 5n)).toEqual({ kind: 'not-yet' });
  });

  it('reports a wallet-to-wallet payment with its comment, and not a bounced one', async () => {
    const sender = newWallet();
    await devnet.fund(sender.address.toString(), 3_000_000_000n);
    const receiver = WalletContractV5R1.create({
      workchain: 0,
      publicKey: keyPairFromSeed(Buffer.alloc(32, 3)).publicKey,
      walletId: { networkGlobalId: -239 },
    });
    const start = await adapter.getBlockNumber();
    await sendBoc(
      devnet.url,
      transferBoc(sender, { to: receiver.address, value: 200_000_000n, seqno: 0, comment: 'order 17' }),
    );
    await devnet.advance();
    // A bounceable payment to an account without code bounces back: nothing stays with it.
    const seqno = (await walletInfo(devnet.url, sender.address)).seqno ?? 1;
    await sendBoc(
      devnet.url,
      transferBoc(sender, { to: receiver.address, value: 100_000_000n, seqno, bounce: true }),
    );
    await devnet.advance();
    const head = await adapter.getBlockNumber();
    const transfers = [];
    for (let height = start + 1n; height <= head; height++) {
      const reading = await adapter.follower.read(height);
      if (reading.kind === 'block') transfers.push(...reading.block.transfers);
    }
    const toReceiver = transfers.filter((t) => t.to === comparable(receiver.address.toString()));
    expect(toReceiver).toHaveLength(1);
    expect(toReceiver[0]).toMatchObject({
      amountRaw: 200_000_000n,
      from: comparable(sender.address.toString()),
      comment: 'order 17',
    });
  });
});
