import { ed25519 } from '@noble/curves/ed25519.js';
import {
  Address,
  beginCell,
  Cell,
  external,
  internal,
  loadMessage,
  loadOutList,
  storeMessage,
  storeMessageRelaxed,
} from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { readSignedMessage } from '../../src/chains/ton/broadcast.ts';
import {
  custodialWallet,
  feeQuery,
  signedTransfer,
  unsignedTransfer,
  type WalletTransfer,
} from '../../src/chains/ton/build.ts';
import { commentField, MAX_COMMENT_BYTES } from '../../src/chains/ton/comment.ts';
import { JETTON_FORWARD_AMOUNT, JETTON_TRANSFER_ATTACHED } from '../../src/chains/ton/fees.ts';
import { jettonTransferBody, jettonTransferMessage } from '../../src/chains/ton/jetton-transfer.ts';
import { JETTON_OPS } from '../../src/chains/ton/message-bodies.ts';
import { normalizedMessageHash } from '../../src/chains/ton/message-hash.ts';
import type { TonSendNode } from '../../src/chains/ton/send-node.ts';
import {
  bouncesTo,
  commentCell,
  tonTransferMessage,
  WALLET_SEND_MODE,
} from '../../src/chains/ton/wallet-transfer.ts';
import { ApiError } from '../../src/errors.ts';

const seed = Buffer.alloc(32, 7);
const publicKey = Buffer.from(ed25519.getPublicKey(seed));
const secretKey = Buffer.concat([seed, publicKey]);
const receiverRaw = `0:${'ab'.repeat(32)}`;
const receiver = Address.parseRaw(receiverRaw);

function transfer(overrides: Partial<WalletTransfer> = {}): WalletTransfer {
  return {
    network: 'testnet',
    publicKey,
    seqno: 4,
    validUntil: 1_900_000_000,
    deploy: false,
    messages: [tonTransferMessage(receiverRaw, 1_500_000_000n, 'active', 'order 42')],
    ...overrides,
  };
}

describe('TON comments', () => {
  it('is op 0 and the UTF-8 text, in a snake of cells when longer than one', () => {
    const long = 'ü'.repeat(200);
    const cell = commentCell(long);
    const slice = cell.beginParse();
    expect(slice.loadUint(32)).toBe(0);
    expect(slice.loadStringTail()).toBe(long);
    expect(cell.refs.length).toBe(1);
  });

  it('refuses control characters and texts over the bound, and reads an empty comment as none', () => {
    expect(commentField(undefined)).toBeNull();
    expect(commentField('')).toBeNull();
    expect(commentField('line one\nline two')).toBe('line one\nline two');
    const refused = (text: string) => {
      try {
        commentField(text);
      } catch (error) {
        return error instanceof ApiError ? error.errors[0]?.message : null;
      }
      return null;
    };
    expect(refused('a\u0000b')).toMatch(/control characters/);
    expect(refused('x'.repeat(MAX_COMMENT_BYTES + 1))).toMatch(/at most 500/);
    expect(refused('€'.repeat(200))).toMatch(/600 bytes/);
  });
});

describe('TON transfer messages', () => {
  it('bounces only from an active or frozen contract', () => {
    expect(bouncesTo('active')).toBe(true);
    expect(bouncesTo('frozen')).toBe(true);
    expect(bouncesTo('uninit')).toBe(false);
    expect(bouncesTo('nonexist')).toBe(false);
    const message = tonTransferMessage(receiverRaw, 1n, 'nonexist', null);
    expect(message.to.equals(receiver)).toBe(true);
    expect(message).toMatchObject({ value: 1n, bounce: false, body: null });
  });

  it('writes a jetton transfer as TEP-74 reads it, the comment in the forward payload', () => {
    const ownerRaw = `0:${'11'.repeat(32)}`;
    const owner = Address.parseRaw(ownerRaw);
    const body = jettonTransferBody(
      {
        senderJettonWallet: receiverRaw,
        to: receiverRaw,
        responseTo: ownerRaw,
        units: 2_500_000n,
        comment: 'invoice 7',
      },
      99n,
    ).beginParse();
    expect(body.loadUint(32)).toBe(JETTON_OPS.transfer);
    expect(body.loadUintBig(64)).toBe(99n);
    expect(body.loadCoins()).toBe(2_500_000n);
    expect(body.loadAddress().equals(receiver)).toBe(true);
    expect(body.loadAddress().equals(owner)).toBe(true);
    expect(body.loadBit()).toBe(false);
    expect(body.loadCoins()).toBe(JETTON_FORWARD_AMOUNT);
    expect(body.loadBit()).toBe(true);
    const payload = body.loadRef().beginParse();
    expect(payload.loadUint(32)).toBe(0);
    expect(payload.loadStringTail()).toBe('invoice 7');

    const message = jettonTransferMessage({
      senderJettonWallet: receiverRaw,
      to: ownerRaw,
      responseTo: ownerRaw,
      units: 1n,
      comment: null,
    });
    expect(message.value).toBe(JETTON_TRANSFER_ATTACHED);
    expect(message.bounce).toBe(true);
    const plain = message.body?.beginParse();
    plain?.skip(32 + 64);
    plain?.loadCoins();
    plain?.loadAddress();
    plain?.loadAddress();
    plain?.skip(1);
    plain?.loadCoins();
    expect(plain?.loadBit()).toBe(false);
  });
});

describe('the normalized message hash', () => {
  it('keeps the destination and the body only: a state init or an import fee does not change it', async () => {
    const body = Cell.fromBase64((await feeQuery(transfer())).body);
    const wallet = custodialWallet(publicKey, 'testnet');
    const bare = external({ to: wallet.address, body });
    const withInit = external({ to: wallet.address, body, init: wallet.init });
    const withFee = { ...bare, info: { ...bare.info, importFee: 5n } } as typeof bare;
    const hash = normalizedMessageHash(bare, beginCell());
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(normalizedMessageHash(withInit, beginCell())).toBe(hash);
    expect(normalizedMessageHash(withFee, beginCell())).toBe(hash);
    expect(beginCell().store(storeMessage(withInit)).endCell().hash().toString('hex')).not.toBe(hash);
  });

  it('is the txid of a signed transfer, read back from its BOC', async () => {
    const signed = signedTransfer(transfer({ deploy: true }), secretKey);
    const read = loadMessage(Cell.fromBase64(signed.boc).beginParse());
    expect(read.init).toBeTruthy();
    expect(normalizedMessageHash(read, beginCell())).toBe(signed.txid);
  });
});

describe('a built transfer', () => {
  it('signed with @ton/ton as the build route describes gives the message the gateway signs', async () => {
    const plan = transfer({ deploy: true });
    const built = unsignedTransfer(plan);
    expect(built.wallet.networkGlobalId).toBe(-3);
    expect(built.sendMode).toBe(WALLET_SEND_MODE);
    expect(built.stateInit).not.toBeNull();
    expect(built.messages[0]).toMatchObject({ value: '1500000000', bounce: true });

    // What a user does with the answer and their own key.
    const wallet = WalletContractV5R1.create({
      workchain: 0,
      publicKey,
      walletId: { networkGlobalId: built.wallet.networkGlobalId },
    });
    expect(wallet.address.equals(Address.parse(built.wallet.address))).toBe(true);
    const body = wallet.createTransfer({
      seqno: built.seqno,
      timeout: built.validUntil,
      sendMode: built.sendMode,
      secretKey,
      messages: built.messages.map((m) =>
        internal({
          to: m.to,
          value: BigInt(m.value),
          bounce: m.bounce,
          body: m.body === null ? undefined : Cell.fromBase64(m.body),
        }),
      ),
    });
    const message = external({
      to: wallet.address,
      init: built.stateInit === null ? undefined : wallet.init,
      body,
    });
    const boc = beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
    expect(boc).toBe(signedTransfer(plan, secretKey).boc);

    // The V5R1 body holds the seqno, the deadline and the one message with its comment.
    const slice = body.beginParse();
    slice.skip(32 + 32);
    expect(slice.loadUint(32)).toBe(plan.validUntil);
    expect(slice.loadUint(32)).toBe(plan.seqno);
    const [action] = loadOutList(slice.loadRef().beginParse());
    expect(action?.type).toBe('sendMsg');
    if (action?.type !== 'sendMsg') return;
    expect(action.mode).toBe(WALLET_SEND_MODE);
    const comment = action.outMsg.body.beginParse();
    expect(comment.loadUint(32)).toBe(0);
    expect(comment.loadStringTail()).toBe('order 42');
  });
});

describe('a message signed elsewhere', () => {
  const display = { wallet: (raw: string) => raw, contract: (raw: string) => raw };
  // A TON transfer's record asks the node nothing.
  const noNode = new Proxy({} as TonSendNode, {
    get: () => () => Promise.reject(new Error('the node was asked')),
  });

  it('is read for its txid and what it sends, before it is broadcast', async () => {
    const signed = signedTransfer(transfer(), secretKey);
    const read = readSignedMessage(signed.boc);
    expect(read.txid).toBe(signed.txid);
    expect(await read.record(noNode, display)).toEqual({
      type: 'TON',
      from: custodialWallet(publicKey, 'testnet').address.toRawString(),
      to: receiver.toRawString(),
      amount: '1.500000000',
    });
  });

  it('refuses what is no signed external message with a 422 on boc', async () => {
    const wallet = custodialWallet(publicKey, 'testnet');
    const internalMessage = beginCell()
      .store(storeMessageRelaxed(internal({ to: wallet.address, value: 1n })))
      .endCell()
      .toBoc()
      .toString('base64');
    for (const boc of ['not base64 at all!', 'AAAA', internalMessage]) {
      const error = (() => {
        try {
          readSignedMessage(boc);
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).errors[0]?.field).toBe('boc');
    }
  });
});
