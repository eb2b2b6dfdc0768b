import { Address } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { TonAdapter } from '../../../src/chains/ton/adapter.ts';
import { tonReads } from '../../../src/chains/ton/reads.ts';
import { tonSettling } from '../../../src/chains/ton/settling.ts';
import { ApiError } from '../../../src/errors.ts';
import { newWallet, sendBoc, transferBoc, walletInfo } from '../../devnets/ton/helpers.ts';

let devnet: TonDevnet;
let adapter: TonAdapter;

beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null, globalId: -3 });
  adapter = new TonAdapter({ network: 'testnet', endpoints: [{ url: devnet.url, headers: {} }], retries: 0 });
});

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const testnetWallet = (address: Address) => address.toString({ bounceable: false, testOnly: true });

describe('the TON reads on the devnet (testnet)', () => {
  it("reads a send by its message's normalized hash: its transfer, comment, outcome and fee", async () => {
    const sender = newWallet(-3);
    await devnet.fund(testnetWallet(sender.address), 3_000_000_000n);
    const receiver = WalletContractV5R1.create({
      workchain: 0,
      publicKey: keyPairFromSeed(Buffer.alloc(32, 5)).publicKey,
      walletId: { networkGlobalId: -3 },
    });
    const sent = await sendBoc(
      devnet.url,
      transferBoc(sender, { to: receiver.address, value: 250_000_000n, seqno: 0, comment: 'invoice 7' }),
    );
    const txid = hex(sent.message_hash_norm);
    expect(await tonSettling.known(adapter, txid)).toBe(false);
    expect(await tonSettling.outcome(adapter, txid, 1000)).toEqual({ status: 'PENDING', reason: null });
    await devnet.advance();
    expect(await tonSettling.known(adapter, txid)).toBe(true);

    const decoded = await tonReads.decodedTransaction.read(adapter, txid);
    expect(decoded).toMatchObject({
      outcome: { status: 'success', account: testnetWallet(sender.address), txid },
      transfers: [
        {
          type: 'TON',
          direction: 'out',
          from: testnetWallet(sender.address),
          to: testnetWallet(receiver.address),
          jetton: null,
          amount: '0.250000000',
          amount_raw: '250000000',
          decimals: 9,
          comment: 'invoice 7',
          bounced: false,
        },
      ],
    });
    expect(await tonSettling.outcome(adapter, txid, 1000)).toEqual({ status: 'SUCCESS', reason: null });

    // The receiver's transaction, by its own hash: the payment received, with its comment.
    const info = await walletInfo(devnet.url, receiver.address);
    const received = await tonReads.decodedTransaction.read(adapter, hex(info.last_transaction_hash));
    expect(received).toMatchObject({
      transfers: [{ direction: 'in', amount: '0.250000000', comment: 'invoice 7', bounced: false }],
    });
    const receipt = await tonReads.receipt.read(adapter, hex(info.last_transaction_hash));
    // Named by the send's txid, and by its own hash.
    expect(receipt).toMatchObject({ status: 'success', txid, hash: hex(info.last_transaction_hash) });
    expect((received as { outcome: { txid: string } }).outcome.txid).toBe(txid);
  });

  it('reads a bounced payment as bounced, and the send that made it as failed', async () => {
    const sender = newWallet(-3);
    await devnet.fund(testnetWallet(sender.address), 2_000_000_000n);
    const nobody = Address.parseRaw(`0:${'ab'.repeat(32)}`);
    const sent = await sendBoc(
      devnet.url,
      transferBoc(sender, { to: nobody, value: 100_000_000n, seqno: 0, bounce: true }),
    );
    await devnet.advance(2);
    const txid = hex(sent.message_hash_norm);
    const decoded = await tonReads.decodedTransaction.read(adapter, txid);
    expect(decoded).toMatchObject({ transfers: [{ type: 'TON', direction: 'out', bounced: true }] });
    const outcome = await tonSettling.outcome(adapter, txid, 1000);
    expect(outcome.status).toBe('FAILED');
    expect(outcome.reason).toMatch(/bounced/);
  });

  it('answers balances, blocks and the head, and refuses what is not there', async () => {
    const wallet = newWallet(-3);
    await devnet.fund(testnetWallet(wallet.address), 1_234_000_000n);
    expect(await tonReads.balance.read(adapter, testnetWallet(wallet.address))).toEqual({
      address: testnetWallet(wallet.address),
      balance: '1.234000000',
      nanotons: '1234000000',
      status: 'uninit',
    });
    const { blocknumber } = (await tonReads.blockNumber.read(adapter)) as { blocknumber: number };
    const block = (await tonReads.block.read(adapter, String(blocknumber))) as {
      block: { seqno: number; global_id: number };
      transactions: unknown[];
    };
    expect(block.block).toMatchObject({ seqno: blocknumber, global_id: -3 });
    await expect(tonReads.block.read(adapter, String(blocknumber + 100))).rejects.toMatchObject({
      status: 404,
    });
    await expect(tonReads.transaction.read(adapter, 'ab'.repeat(32))).rejects.toBeInstanceOf(ApiError);
    await expect(tonReads.receipt.read(adapter, 'not a hash')).rejects.toMatchObject({ status: 422 });
  });
});
