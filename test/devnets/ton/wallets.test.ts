// A V5R1 wallet made with @ton/ton, funded by the faucet, sends TON with a comment through the toncenter v3
// API; what the chain did is read back by hash, by message hash and per block.
import { Address, Cell, loadMessage } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { getJson, newWallet, postJson, raw, sendBoc, transferBoc, txs, walletInfo } from './helpers.ts';

let devnet: TonDevnet;
beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null });
});
afterAll(async () => {
  await devnet?.close();
});

const b64ToHex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

describe('TON devnet: wallets and transfers', () => {
  it('funds a wallet, which sends TON with a comment; balances, seqno and the transaction read back', async () => {
    const alice = newWallet();
    const bob = newWallet();
    await devnet.fund(alice.address.toString({ bounceable: false }), 5_000_000_000n);
    const funded = await walletInfo(devnet.url, alice.address);
    expect(funded).toMatchObject({ balance: '5000000000', status: 'uninit' });

    const boc = transferBoc(alice, {
      to: bob.address,
      value: 1_200_000_000n,
      seqno: 0,
      comment: 'order #42',
    });
    const sent = await sendBoc(devnet.url, boc);
    // Nothing moves before the block closes.
    expect((await walletInfo(devnet.url, alice.address)).balance).toBe('5000000000');
    await devnet.advance();

    const after = await walletInfo(devnet.url, alice.address);
    expect(after).toMatchObject({ status: 'active', seqno: 1, wallet_type: 'wallet v5 r1' });
    expect(BigInt(after.balance)).toBeLessThan(5_000_000_000n - 1_200_000_000n);
    expect(await walletInfo(devnet.url, bob.address)).toMatchObject({
      balance: '1200000000',
      status: 'uninit',
    });
    const account = await getJson(devnet.url, `/api/v3/account?address=${alice.address.toString()}`);
    expect(account).toMatchObject({ status: 'active', balance: after.balance });
    expect(Cell.fromBase64(String(account['code'])).hash().equals(alice.contract.init.code.hash())).toBe(
      true,
    );
    expect(
      await getJson(devnet.url, `/api/v3/addressInformation?address=${newWallet().address.toString()}`),
    ).toMatchObject({
      balance: '0',
      status: 'uninit',
      code: null,
    });

    // By the normalized hash (what a sender tracks), the raw hash and in hex.
    const [byNorm] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(sent.message_hash_norm)}&direction=in`,
    );
    expect(byNorm?.account).toBe(raw(alice.address));
    expect(byNorm?.in_msg?.hash).toBe(sent.message_hash);
    expect(byNorm?.in_msg?.hash_norm).toBe(sent.message_hash_norm);
    const [byHex] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${b64ToHex(sent.message_hash)}&direction=in`,
    );
    expect(byHex?.hash).toBe(byNorm?.hash);
    const out = byNorm?.out_msgs[0];
    expect(out).toMatchObject({
      source: raw(alice.address),
      destination: raw(bob.address),
      value: '1200000000',
      opcode: '0x00000000',
      bounce: false,
      bounced: false,
      message_content: { decoded: { type: 'text_comment', comment: 'order #42' } },
    });

    // The transaction by its hash, in base64url and hex too; the receiver's by the out message's hash.
    const hash = byNorm?.hash ?? '';
    for (const form of [hash, hash.replace(/\+/g, '-').replace(/\//g, '_'), b64ToHex(hash)]) {
      const [tx] = await txs(devnet.url, `/api/v3/transactions?hash=${encodeURIComponent(form)}`);
      expect(tx?.hash).toBe(hash);
    }
    const [received] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(out?.hash ?? '')}&direction=in`,
    );
    expect(received).toMatchObject({ account: raw(bob.address), in_msg: { value: '1200000000' } });

    // Both landed in the block that closed, which lists them with an address book.
    const block = await getJson(
      devnet.url,
      `/api/v3/transactionsByMasterchainBlock?seqno=${byNorm?.mc_block_seqno}`,
    );
    const listed = (block['transactions'] as { hash: string }[]).map((t) => t.hash);
    expect(listed).toContain(hash);
    expect(listed).toContain(received?.hash);
    expect(block['address_book']).toHaveProperty(raw(bob.address));
  });

  it('a message with a wrong seqno leaves no transaction', async () => {
    const carol = newWallet();
    await devnet.fund(carol.address.toString(), 3_000_000_000n);
    await sendBoc(devnet.url, transferBoc(carol, { to: newWallet().address, value: 1n, seqno: 0 }));
    await devnet.advance();
    const before = await walletInfo(devnet.url, carol.address);
    expect(before.seqno).toBe(1);
    const stale = await sendBoc(
      devnet.url,
      transferBoc(carol, { to: newWallet().address, value: 1n, seqno: 0 }),
    );
    await devnet.advance();
    const after = await walletInfo(devnet.url, carol.address);
    expect(after).toMatchObject({
      seqno: 1,
      balance: before.balance,
      last_transaction_hash: before.last_transaction_hash,
    });
    expect(
      await txs(
        devnet.url,
        `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(stale.message_hash_norm)}`,
      ),
    ).toEqual([]);
  });

  it('with refuseUnacceptedMessages, answers a message the wallet would refuse at once, as a liteserver does', async () => {
    const strict = await startTonDevnet({ blockIntervalMs: null, refuseUnacceptedMessages: true });
    try {
      const frank = newWallet();
      await strict.fund(frank.address.toString(), 2_000_000_000n);
      await sendBoc(strict.url, transferBoc(frank, { to: newWallet().address, value: 1n, seqno: 0 }));
      await strict.advance();
      const stale = await postJson(strict.url, '/api/v3/message', {
        boc: transferBoc(frank, { to: newWallet().address, value: 1n, seqno: 0 }),
      });
      expect(stale.status).toBe(500);
      expect((stale.json as { error: string }).error).toMatch(/exitcode=133/);
      // The next seqno is taken, and lands.
      await sendBoc(strict.url, transferBoc(frank, { to: newWallet().address, value: 1n, seqno: 1 }));
      await strict.advance();
      expect((await walletInfo(strict.url, frank.address)).seqno).toBe(2);
    } finally {
      await strict.close();
    }
  });

  it('a bounceable transfer to an address with no contract comes back bounced', async () => {
    const dave = newWallet();
    const nobody = newWallet().address;
    await devnet.fund(dave.address.toString(), 3_000_000_000n);
    const sent = await sendBoc(
      devnet.url,
      transferBoc(dave, {
        to: nobody,
        value: 1_000_000_000n,
        seqno: 0,
        bounce: true,
        comment: 'will bounce',
      }),
    );
    await devnet.advance();
    const [tx] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(sent.message_hash_norm)}`,
    );
    const outgoing = tx?.out_msgs[0];
    expect(outgoing).toMatchObject({ bounce: true, bounced: false, destination: raw(nobody) });
    const [atNobody] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(outgoing?.hash ?? '')}&direction=in`,
    );
    expect(atNobody?.description.aborted).toBe(true);
    expect(atNobody?.out_msgs[0]).toMatchObject({
      bounced: true,
      bounce: false,
      destination: raw(dave.address),
    });
    // The money came back (less fees), and the address still holds nothing.
    expect((await walletInfo(devnet.url, nobody)).balance).toBe('0');
    expect(BigInt((await walletInfo(devnet.url, dave.address)).balance)).toBeGreaterThan(2_900_000_000n);
  });

  it('estimates the fees of a first transfer from a wallet without running it', async () => {
    const erin = newWallet();
    await devnet.fund(erin.address.toString(), 2_000_000_000n);
    const boc = transferBoc(erin, {
      to: newWallet().address,
      value: 100_000_000n,
      seqno: 0,
      comment: 'fee?',
    });
    const body = loadMessage(Cell.fromBase64(boc).beginParse()).body;
    const { status, json } = await postJson(devnet.url, '/api/v3/estimateFee', {
      address: erin.address.toString(),
      body: body.toBoc().toString('base64'),
      init_code: erin.contract.init.code.toBoc().toString('base64'),
      init_data: erin.contract.init.data.toBoc().toString('base64'),
      ignore_chksig: true,
    });
    expect(status).toBe(200);
    const fees = (json as { source_fees: Record<string, number> }).source_fees;
    expect(fees['gas_fee']).toBeGreaterThan(0);
    expect(fees['fwd_fee']).toBeGreaterThan(0);
    expect(fees['in_fwd_fee']).toBeGreaterThan(0);
    // Nothing ran: the wallet is still undeployed with all its balance.
    expect(await walletInfo(devnet.url, erin.address)).toMatchObject({
      status: 'uninit',
      balance: '2000000000',
    });
    // Without the code the wallet cannot accept it.
    const refused = await postJson(devnet.url, '/api/v3/estimateFee', {
      address: erin.address.toString(),
      body: body.toBoc().toString('base64'),
    });
    expect(refused.status).toBe(500);
    expect(refused.json).toHaveProperty('error');
  });

  it('runs get-methods with the node stack forms; a contract without code answers exit code -13', async () => {
    const faucet = Address.parse(devnet.faucet.address);
    const { status, json } = await postJson(devnet.url, '/api/v3/runGetMethod', {
      address: devnet.faucet.address,
      method: 'get_public_key',
      stack: [],
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ exit_code: 0, stack: [{ type: 'num' }] });
    const none = await postJson(devnet.url, '/api/v3/runGetMethod', {
      address: newWallet().address.toString(),
      method: 'seqno',
      stack: [],
    });
    expect(none.json).toEqual({ gas_used: 0, exit_code: -13, stack: [] });
    expect((await walletInfo(devnet.url, faucet)).wallet_type).toBe('wallet v5 r1');
  });
});
