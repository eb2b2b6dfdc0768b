/**
 * A jetton transfer (TEP-74): the sender's wallet sends `transfer` to its own jetton wallet, which moves
 * the jettons to the receiver's jetton wallet. That message carries TON for the two jetton wallets' gas
 * (fees.ts); what is left comes back to the sender (`response_destination`) as `excesses`. The comment
 * rides in the `forward_payload`, with a `forward_ton_amount` of 1 nanoton: enough for the receiver's
 * jetton wallet to tell its owner with `transfer_notification`, which carries the payload to where
 * wallets and payment processors read the comment.
 */
import { randomBytes } from 'node:crypto';
import { Address, beginCell, type Cell } from '@ton/core';
import { JETTON_FORWARD_AMOUNT, JETTON_TRANSFER_ATTACHED } from './fees.ts';
import { JETTON_OPS } from './message-bodies.ts';
import { commentCell, type OutgoingMessage } from './wallet-transfer.ts';

/** Raw addresses and units of a jetton transfer. */
export interface JettonTransfer {
  /** The sender's own jetton wallet, which the message goes to. */
  senderJettonWallet: string;
  /** The receiver's wallet (owner) address. */
  to: string;
  /** Where the unspent TON returns: the sender. */
  responseTo: string;
  /** In the jetton's base units. */
  units: bigint;
  comment: string | null;
}

/** The `transfer` body: query id, amount, destination, response destination, no custom payload, forward. */
export function jettonTransferBody(transfer: JettonTransfer, queryId = randomQueryId()): Cell {
  const body = beginCell()
    .storeUint(JETTON_OPS.transfer, 32)
    .storeUint(queryId, 64)
    .storeCoins(transfer.units)
    .storeAddress(Address.parseRaw(transfer.to))
    .storeAddress(Address.parseRaw(transfer.responseTo))
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
    to: Address.parseRaw(transfer.senderJettonWallet),
    value: JETTON_TRANSFER_ATTACHED,
    bounce: true,
    body: jettonTransferBody(transfer),
  };
}

/** A random query id: it lets the sender match the `excesses` coming back to this transfer. */
function randomQueryId(): bigint {
  return randomBytes(8).readBigUInt64BE();
}
