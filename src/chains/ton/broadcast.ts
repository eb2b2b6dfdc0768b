/**
 * A message signed outside the gateway, read before it is broadcast: its txid (the normalized hash) and
 * what the history records of it. A V5R1 wallet's transfer is read for its first message: a jetton
 * `transfer` (the jettons, their receiver and master), else TON (the value and receiver); any other
 * message is recorded as `raw`.
 */
import { beginCell, Cell, loadMessage, loadOutList, type Message, type MessageRelaxed } from '@ton/core';
import { invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { SendRecord } from '../send-contract.ts';
import { NANOTON_DECIMALS } from './block-transfers.ts';
import { JETTON_OPS } from './message-bodies.ts';
import { normalizedMessageHash } from './message-hash.ts';
import type { TonSendNode } from './send-node.ts';

/** The op a V5R1 wallet's signed external message starts with ("sign"). */
const V5R1_SIGNED_EXTERNAL = 0x7369676e;

/** Base64 (standard or URL-safe) with its padding. */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** How the history writes a raw address: a wallet's, or a contract's (a jetton master). */
export interface AddressDisplay {
  wallet(raw: string): string;
  contract(raw: string): string;
}

export interface SignedMessage {
  txid: string;
  /** The message as the node takes it (base64 BOC). */
  boc: string;
  /** What the history records; asks the node what a jetton transfer moves. */
  record(node: TonSendNode, display: AddressDisplay): Promise<SendRecord>;
}

/** Reads `boc`: a 422 on the field when it is no signed external message. */
export function readSignedMessage(boc: string): SignedMessage {
  const text = boc.trim();
  const message = BASE64.test(text) ? parsedMessage(text) : null;
  if (message === null) throw invalidField('boc', 'The boc field must be a TON message as a base64 BOC.');
  if (message.info.type !== 'external-in') {
    throw invalidField('boc', 'The boc field must be an external message to a wallet, signed by its key.');
  }
  const wallet = message.info.dest.toRawString();
  const sent = firstTransfer(message.body);
  return {
    txid: normalizedMessageHash(message, beginCell()),
    boc: Buffer.from(text, 'base64').toString('base64'),
    record: async (node, display) => {
      const from = display.wallet(wallet);
      if (sent === null || sent.info.type !== 'internal')
        return { type: 'raw', from, to: null, amount: null };
      const jetton = jettonTransferOf(sent);
      if (jetton === null) {
        return {
          type: 'TON',
          from,
          to: display.wallet(sent.info.dest.toRawString()),
          amount: assetAmount(sent.info.value.coins, NANOTON_DECIMALS),
        };
      }
      // The jetton's master and decimals only the chain knows; the history keeps what could be read.
      const master = await node.jettonMasterOf(sent.info.dest.toRawString()).catch(() => null);
      const decimals = master === null ? null : await node.jettonDecimals(master).catch(() => null);
      return {
        type: 'JETTON',
        from,
        to: display.wallet(jetton.to),
        amount: decimals === null ? null : assetAmount(jetton.units, decimals),
        contractaddress: master === null ? null : display.contract(master),
      };
    },
  };
}

function parsedMessage(base64: string): Message | null {
  try {
    const cells = Cell.fromBoc(Buffer.from(base64, 'base64'));
    const root = cells[0];
    if (cells.length !== 1 || root === undefined) return null;
    return loadMessage(root.beginParse());
  } catch {
    return null;
  }
}

/** The first message a V5R1 wallet's signed transfer sends; null for any other body. */
function firstTransfer(body: Cell): MessageRelaxed | null {
  try {
    const slice = body.beginParse();
    if (slice.loadUint(32) !== V5R1_SIGNED_EXTERNAL) return null;
    slice.skip(32 + 32 + 32); // wallet id, valid_until, seqno
    const outList = slice.loadMaybeRef();
    if (outList === null) return null;
    const action = loadOutList(outList.beginParse()).find((each) => each.type === 'sendMsg');
    return action?.type === 'sendMsg' ? action.outMsg : null;
  } catch {
    return null;
  }
}

/** A jetton `transfer` carried by `message`: its units and receiver (raw); else null. */
function jettonTransferOf(message: MessageRelaxed): { units: bigint; to: string } | null {
  try {
    const body = message.body.beginParse();
    if (body.remainingBits < 32 || body.loadUint(32) !== JETTON_OPS.transfer) return null;
    body.skip(64); // query id
    const units = body.loadCoins();
    return { units, to: body.loadAddress().toRawString() };
  } catch {
    return null;
  }
}
