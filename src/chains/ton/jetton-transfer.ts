/**
 * A jetton transfer (TEP-74): the sender's wallet sends `transfer` to its own jetton wallet, which moves
 * the jettons to the receiver's jetton wallet. That message carries TON for the two jetton wallets' gas;
 * what is left comes back to the sender (`response_destination`) as `excesses`. The comment rides in the
 * `forward_payload`, and `forward_ton_amount` is 1 nanoton: enough for the receiver's jetton wallet to
 * tell its owner with `transfer_notification` (which carries the payload, where wallets and payment
 * processors read the comment), as wallets send it.
 */
import { randomBytes } from 'node:crypto';
import { type Address, beginCell, type Cell } from '@ton/core';
import { commentCell } from './comment.ts';
import type { OutgoingMessage } from './wallet-transfer.ts';

export const JETTON_TRANSFER_OP = 0x0f8a7ea5;

/** TON sent to the sender's jetton wallet for both jetton wallets' gas and the forward; the rest returns. */
export const JETTON_TRANSFER_ATTACHED = 50_000_000n;

/** TON forwarded to the receiver with the notification. */
export const JETTON_FORWARD_AMOUNT = 1n;

export interface JettonTransfer {
  /** The sender's own jetton wallet, which the message goes to. */
  senderJettonWallet: Address;
  /** The receiver's wallet (owner) address. */
  to: Address;
  /** Where the unspent TON returns: the sender. */
  responseTo: Address;
  /** In the jetton's base units. */
  units: bigint;
  comment: string | null;
}

/** The `transfer` body: query id, amount, destination, response destination, no custom payload, forward. */
export function jettonTransferBody(transfer: JettonTransfer, queryId = randomQueryId()): Cell {
  const body = beginCell()
    .storeUint(JETTON_TRANSFER_OP, 32)
    .storeUint(queryId, 64)
    .storeCoins(transfer.units)
    .storeAddress(transfer.to)
    .storeAddress(transfer.responseTo)
    .storeBit(false)
    .storeCoins(JETTON_FORWARD_AMOUNT);
  // The comment in a cell of its own (the Either's right branch): it may be longer than what is left here.
  if (transfer.comment === null) body.storeBit(false);
  else body.storeBit(true).storeRef(commentCell(transfer.comment));
  return body.endCell();
}

/** The message from the sender's wallet to its jetton wallet: bounceable, as it is a deployed contract. */
export function jettonTransferMessage(transfer: JettonTransfer): OutgoingMessage {
  return {
    to: transfer.senderJettonWallet,
    value: JETTON_TRANSFER_ATTACHED,
    bounce: true,
    body: jettonTransferBody(transfer),
  };
}

/** A random query id: it lets the sender match the `excesses` coming back to this transfer. */
function randomQueryId(): bigint {
  return randomBytes(8).readBigUInt64BE();
}
