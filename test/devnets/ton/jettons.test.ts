// The demo USDT jetton (the project's TEP-74 contracts): metadata on chain, a mint from the faucet, then a
// wallet's jetton transfer with a comment in its forward_payload, read back as a wallet would.
import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, Dictionary, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { type MsgJson, newWallet, postJson, raw, sendBoc, transferBoc, txs } from './helpers.ts';

let devnet: TonDevnet;
beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null });
});
afterAll(async () => {
  await devnet?.close();
});

interface StackEntry {
  type: string;
  value: string;
}

async function getMethod(address: string, method: string, stack: StackEntry[] = []): Promise<StackEntry[]> {
  const { status, json } = await postJson(devnet.url, '/api/v3/runGetMethod', { address, method, stack });
  expect(status).toBe(200);
  const answer = json as { exit_code: number; stack: StackEntry[] };
  expect(answer.exit_code).toBe(0);
  return answer.stack;
}

const addressSlice = (address: Address): StackEntry => ({
  type: 'slice',
  value: beginCell().storeAddress(address).endCell().toBoc().toString('base64'),
});
const readAddress = (entry: StackEntry | undefined) =>
  Cell.fromBase64(entry?.value ?? '')
    .beginParse()
    .loadAddress();

async function jettonWallet(owner: Address): Promise<Address> {
  const [entry] = await getMethod(devnet.tokens.jetton.USDT, 'get_wallet_address', [addressSlice(owner)]);
  return readAddress(entry);
}

/** A jetton wallet's balance, or null when it is not deployed. */
async function jettonBalance(owner: Address): Promise<bigint | null> {
  const wallet = await jettonWallet(owner);
  const { json } = await postJson(devnet.url, '/api/v3/runGetMethod', {
    address: wallet.toString(),
    method: 'get_wallet_data',
    stack: [],
  });
  const answer = json as { exit_code: number; stack: StackEntry[] };
  if (answer.exit_code !== 0) return null;
  return BigInt(answer.stack[0]?.value ?? 'x');
}

function metadataValue(content: Cell, key: string): string | undefined {
  const s = content.beginParse();
  expect(s.loadUint(8)).toBe(0);
  const dict = s.loadDict(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  const value = dict.get(createHash('sha256').update(key).digest())?.beginParse();
  if (!value) return undefined;
  expect(value.loadUint(8)).toBe(0);
  return value.loadStringTail();
}

describe('TON devnet: the USDT jetton', () => {
  it('has TEP-64 metadata on chain and the faucet as admin', async () => {
    const [supply, mintable, admin, content] = await getMethod(devnet.tokens.jetton.USDT, 'get_jetton_data');
    expect(supply?.type).toBe('num');
    expect(mintable?.value).toBe('-0x1');
    expect(readAddress(admin).equals(Address.parse(devnet.faucet.address))).toBe(true);
    const cell = Cell.fromBase64(content?.value ?? '');
    expect(metadataValue(cell, 'name')).toBe('Tether USD');
    expect(metadataValue(cell, 'symbol')).toBe('USDT');
    expect(metadataValue(cell, 'decimals')).toBe('6');
    expect(metadataValue(cell, 'description')).toBeTypeOf('string');
  });

  it('mints to an owner, who sends jettons with a comment: balances, notification and excesses', async () => {
    const alice = newWallet();
    const bob = newWallet();
    await devnet.fund(alice.address.toString(), 2_000_000_000n);
    expect(await jettonBalance(alice.address)).toBeNull();
    await devnet.mintJetton(devnet.tokens.jetton.USDT, alice.address.toString(), 25_000_000n);
    expect(await jettonBalance(alice.address)).toBe(25_000_000n);
    await expect(
      devnet.mintJetton(newWallet().address.toString(), alice.address.toString(), 1n),
    ).rejects.toThrow(/not a jetton of this devnet/);

    const forwardPayload = beginCell().storeUint(0, 32).storeStringTail('invoice 7').endCell();
    const transfer = beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(7, 64)
      .storeCoins(10_000_000n)
      .storeAddress(bob.address)
      .storeAddress(alice.address)
      .storeBit(false) // no custom payload
      .storeCoins(toNano('0.01'))
      .storeBit(true)
      .storeRef(forwardPayload)
      .endCell();
    const sent = await sendBoc(
      devnet.url,
      transferBoc(alice, {
        to: await jettonWallet(alice.address),
        value: toNano('0.1'),
        seqno: 0,
        bounce: true,
        body: transfer,
      }),
    );
    await devnet.advance();
    expect(await jettonBalance(alice.address)).toBe(15_000_000n);
    expect(await jettonBalance(bob.address)).toBe(10_000_000n);

    // The whole trace landed in the block: bob (uninit, a wallet never deployed) got the notification
    // with the comment, alice the excesses.
    const [first] = await txs(
      devnet.url,
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(sent.message_hash_norm)}`,
    );
    const block = await txs(
      devnet.url,
      `/api/v3/transactionsByMasterchainBlock?seqno=${first?.mc_block_seqno}&limit=100`,
    );
    // One trace, from the wallet's external message: wallet, both jetton wallets, bob's notification, alice's excesses.
    expect(block.filter((t) => t.trace_id === first?.hash)).toHaveLength(5);
    const inMsgs = block.flatMap((t) => (t.in_msg ? [{ account: t.account, msg: t.in_msg }] : []));
    const notification = inMsgs.find((m) => m.msg.opcode === '0x7362d09c');
    expect(notification?.account).toBe(raw(bob.address));
    expect(notification?.msg.value).toBe(toNano('0.01').toString());
    const body = Cell.fromBase64(notification?.msg.message_content.body ?? '').beginParse();
    body.skip(32 + 64);
    expect(body.loadCoins()).toBe(10_000_000n);
    expect(body.loadAddress().equals(alice.address)).toBe(true);
    expect(body.loadBit()).toBe(true);
    const comment = body.loadRef().beginParse();
    expect(comment.loadUint(32)).toBe(0);
    expect(comment.loadStringTail()).toBe('invoice 7');
    const excesses = inMsgs.find((m: { msg: MsgJson }) => m.msg.opcode === '0xd53276db');
    expect(excesses?.account).toBe(raw(alice.address));
    const internalTransfer = inMsgs.find((m) => m.msg.opcode === '0x178d4519');
    expect(internalTransfer?.account).toBe(raw(await jettonWallet(bob.address)));
  });
});
