import { Address, beginCell, external, internal, SendMode, storeMessage } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { NodeClient } from '../../../src/chains/node-client.ts';
import { TonAdapter } from '../../../src/chains/ton/adapter.ts';
import { tonKeyFromSeed } from '../../../src/chains/ton/keys.ts';
import { tonHeadProbe, tonNetworkProbe } from '../../../src/chains/ton/probe.ts';
import type { TransferEvent } from '../../../src/chains/types.ts';
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

/** Every transfer the follower reports from the block after `from` to the head. */
async function transfersSince(from: bigint): Promise<TransferEvent[]> {
  const head = await adapter.getBlockNumber();
  const transfers: TransferEvent[] = [];
  for (let height = from + 1n; height <= head; height++) {
    const reading = await adapter.follower.read(height);
    if (reading.kind === 'block') transfers.push(...reading.block.transfers);
  }
  return transfers;
}

const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

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
    });
    expect(found?.logIndex).toBeGreaterThanOrEqual(0);
    expect(found?.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await adapter.getBalance(pair.address)).toBe(1_500_000_000n);
    expect(await adapter.follower.read(head + 5n)).toEqual({ kind: 'not-yet' });
  });

  it('reports a wallet-to-wallet payment with its comment, and a bounced one as failed', async () => {
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
    // A bounceable payment to an account without code bounces back: nothing stays with it, and it is
    // reported as failed, never as paid.
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
    expect(toReceiver).toHaveLength(2);
    expect(toReceiver[0]).toMatchObject({
      amountRaw: 200_000_000n,
      from: comparable(sender.address.toString()),
      comment: 'order 17',
    });
    expect(toReceiver[0]?.failed).toBeUndefined();
    expect(toReceiver[1]).toMatchObject({
      amountRaw: 100_000_000n,
      failed: expect.stringMatching(/^bounced/),
    });
  });

  it("reports a wallet's payment under the send's txid, not the receiving transaction's hash", async () => {
    const sender = newWallet();
    await devnet.fund(sender.address.toString(), 2_000_000_000n);
    const receiver = newWallet();
    const start = await adapter.getBlockNumber();
    const sent = await sendBoc(
      devnet.url,
      transferBoc(sender, { to: receiver.address, value: 300_000_000n, seqno: 0, comment: 'order 18' }),
    );
    await devnet.advance();
    const paid = (await transfersSince(start)).filter(
      (t) => t.to === comparable(receiver.address.toString()),
    );
    expect(paid).toMatchObject([{ amountRaw: 300_000_000n, txid: hex(sent.message_hash_norm) }]);
    const received = await walletInfo(devnet.url, receiver.address);
    expect(paid[0]?.txid).not.toBe(hex(received.last_transaction_hash));
  });

  it('reports both payments of one wallet message to two addresses, under its txid, each its own', async () => {
    const sender = newWallet();
    await devnet.fund(sender.address.toString(), 2_000_000_000n);
    const first = newWallet();
    const second = newWallet();
    const body = sender.contract.createTransfer({
      seqno: 0,
      secretKey: sender.keys.secretKey,
      sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
      messages: [
        internal({ to: first.address, value: 110_000_000n, bounce: false }),
        internal({ to: second.address, value: 120_000_000n, bounce: false }),
      ],
    });
    const message = external({ to: sender.address, init: sender.contract.init, body });
    const boc = beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
    const start = await adapter.getBlockNumber();
    const sent = await sendBoc(devnet.url, boc);
    await devnet.advance();
    const watched = new Set<string | null>([
      comparable(first.address.toString()),
      comparable(second.address.toString()),
    ]);
    const paid = (await transfersSince(start)).filter((t) => watched.has(t.to));
    expect(paid.map((t) => t.amountRaw).sort()).toEqual([110_000_000n, 120_000_000n]);
    for (const transfer of paid) expect(transfer.txid).toBe(hex(sent.message_hash_norm));
    // The notifications' key (txid, log index, block): two keys, so neither payment is dropped.
    const keys = new Set(paid.map((t) => `${t.txid}/${t.logIndex}/${t.blockHash}`));
    expect(keys.size).toBe(2);
    // Every read of the block numbers them alike.
    const again = (await transfersSince(start)).filter((t) => watched.has(t.to));
    expect(again.map((t) => t.logIndex)).toEqual(paid.map((t) => t.logIndex));
  });
});
