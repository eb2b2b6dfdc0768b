// Jettons through the TON family on the devnet's demo USDT: the follower reports a mint and a wallet's
// jetton transfer with its comment, the reads describe the master and balances, and a contract that
// claims to be a USDT wallet without the master's word is never taken for one.

import {
  Address,
  beginCell,
  Cell,
  contractAddress,
  external,
  internal,
  SendMode,
  storeMessage,
  toNano,
} from '@ton/core';
import { compileFunc } from '@ton-community/func-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { TonAdapter } from '../../../src/chains/ton/adapter.ts';
import { JETTON_OPS } from '../../../src/chains/ton/message-bodies.ts';
import { tonReads } from '../../../src/chains/ton/reads.ts';
import { readMaster } from '../../../src/chains/ton/token-reads.ts';
import type { TransferEvent } from '../../../src/chains/types.ts';
import { newWallet, sendBoc, type TestWallet, transferBoc, walletInfo } from '../../devnets/ton/helpers.ts';

let devnet: TonDevnet;
let adapter: TonAdapter;
let usdt: Address;

beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null });
  adapter = new TonAdapter({ network: 'mainnet', endpoints: [{ url: devnet.url, headers: {} }], retries: 0 });
  usdt = Address.parse(devnet.tokens.jetton.USDT);
});

afterAll(async () => {
  await adapter?.close();
  await devnet?.close();
});

const comparable = (address: Address) => `${address.workChain}:${address.hash.toString('hex')}`;

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

async function jettonWalletOf(owner: Address): Promise<Address> {
  const wallet = await adapter.jettons.walletOf(comparable(usdt), comparable(owner));
  return Address.parseRaw(wallet!);
}

function jettonTransfer(to: Address, responseTo: Address, units: bigint, comment: string): Cell {
  return beginCell()
    .storeUint(JETTON_OPS.transfer, 32)
    .storeUint(1, 64)
    .storeCoins(units)
    .storeAddress(to)
    .storeAddress(responseTo)
    .storeBit(false)
    .storeCoins(toNano('0.01'))
    .storeBit(true)
    .storeRef(beginCell().storeUint(0, 32).storeStringTail(comment).endCell())
    .endCell();
}

async function fundedWallet(): Promise<TestWallet> {
  const wallet = newWallet();
  await devnet.fund(wallet.address.toString(), 2_000_000_000n);
  return wallet;
}

describe('jettons on the TON devnet', () => {
  it('reports a mint and a jetton transfer: from the sending owner to the receiving owner, in USDT', async () => {
    const alice = await fundedWallet();
    const bob = newWallet();
    const start = await adapter.getBlockNumber();
    await devnet.mintJetton(devnet.tokens.jetton.USDT, alice.address.toString(), 25_000_000n);
    const sent = await sendBoc(
      devnet.url,
      transferBoc(alice, {
        to: await jettonWalletOf(alice.address),
        value: toNano('0.1'),
        seqno: 0,
        bounce: true,
        body: jettonTransfer(bob.address, alice.address, 10_000_000n, 'invoice 7'),
      }),
    );
    await devnet.advance();
    const jettonTransfers = (await transfersSince(start)).filter((t) => t.type === 'JETTON');
    expect(jettonTransfers).toMatchObject([
      {
        from: null,
        to: comparable(alice.address),
        contractAddress: comparable(usdt),
        amountRaw: 25_000_000n,
        decimals: 6,
      },
      {
        from: comparable(alice.address),
        to: comparable(bob.address),
        contractAddress: comparable(usdt),
        amountRaw: 10_000_000n,
        decimals: 6,
        comment: 'invoice 7',
        // The send's txid, though the jetton moved three transactions after the wallet's.
        txid: Buffer.from(sent.message_hash_norm, 'base64').toString('hex'),
      },
    ]);
    // The jetton plumbing (notification, excesses) moves TON as gas, never as a payment.
    const ton = (await transfersSince(start)).filter((t) => t.type === 'TON');
    expect(ton.filter((t) => t.to === comparable(bob.address))).toEqual([]);

    const decoded = await tonReads.decodedTransaction.read(
      adapter,
      Buffer.from(sent.message_hash_norm, 'base64').toString('hex'),
    );
    expect(decoded).toMatchObject({
      outcome: { status: 'success' },
      transfers: [
        {
          type: 'JETTON',
          direction: 'out',
          from: alice.address.toString({ bounceable: false }),
          to: bob.address.toString({ bounceable: false }),
          jetton: usdt.toString(),
          amount: '10.000000',
          amount_raw: '10000000',
          decimals: 6,
          comment: 'invoice 7',
          bounced: false,
        },
      ],
    });
  });

  it('describes the master from its on-chain metadata, and refuses an address that is none', async () => {
    const master = await readMaster(adapter, usdt.toString());
    expect(master).toMatchObject({ name: 'Tether USD', symbol: 'USDT', decimals: 6, mintable: true });
    const wallet = await fundedWallet();
    await expect(readMaster(adapter, wallet.address.toString())).rejects.toMatchObject({ status: 400 });
    await expect(readMaster(adapter, `0:${'cd'.repeat(32)}`)).rejects.toMatchObject({ status: 400 });
  });

  it('never takes a contract that claims a USDT wallet, without the master naming it, for one', async () => {
    const attacker = await fundedWallet();
    const victim = newWallet();
    const compiled = await compileFunc({
      targets: ['fake.fc'],
      sources: {
        'fake.fc': `
          cell get_data() asm "c4 PUSH";
          slice begin_parse(cell c) asm "CTOS";
          (slice, slice) load_msg_addr(slice s) asm( -> 1 0) "LDMSGADDR";
          () recv_internal(cell in_msg_full, slice in_msg_body) impure { }
          (int, slice, slice, cell) get_wallet_data() method_id {
            slice ds = begin_parse(get_data());
            slice owner = ds~load_msg_addr();
            slice master = ds~load_msg_addr();
            return (1000000000, owner, master, get_data());
          }`,
      },
    });
    if (compiled.status === 'error') throw new Error(compiled.message);
    const code = Cell.fromBase64(compiled.codeBoc);
    const data = beginCell().storeAddress(victim.address).storeAddress(usdt).endCell();
    const fake = contractAddress(0, { code, data });
    const seqno = (await walletInfo(devnet.url, attacker.address)).seqno ?? 0;
    const deploy = attacker.contract.createTransfer({
      seqno,
      secretKey: attacker.keys.secretKey,
      sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
      messages: [
        internal({
          to: fake,
          value: toNano('0.2'),
          init: { code, data },
          body: beginCell()
            .storeUint(JETTON_OPS.internalTransfer, 32)
            .storeUint(0, 64)
            .storeCoins(5_000_000_000n)
            .storeAddress(attacker.address)
            .storeAddress(attacker.address)
            .storeCoins(0)
            .storeBit(false)
            .endCell(),
        }),
      ],
    });
    const message = external({
      to: attacker.address,
      ...(seqno === 0 ? { init: attacker.contract.init } : {}),
      body: deploy,
    });
    const start = await adapter.getBlockNumber();
    await sendBoc(devnet.url, beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64'));
    await devnet.advance();
    // The fake ran and says it is the victim's USDT wallet...
    expect(await adapter.jettons.walletData(comparable(fake))).toMatchObject({ master: comparable(usdt) });
    // ...but USDT's master names another wallet for the victim, so nothing is reported.
    expect(await adapter.jettons.wallet(comparable(fake))).toBeNull();
    expect((await transfersSince(start)).filter((t) => t.type === 'JETTON')).toEqual([]);
  });
});
