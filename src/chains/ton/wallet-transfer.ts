/**
 * What a custodial wallet is told to send. Every custodial address is a V5R1 wallet of its key on the
 * network's global id; a send is one internal message from it, sent with PAY_GAS_SEPARATELY +
 * IGNORE_ERRORS (the mode wallets use: the value arrives whole, the wallet pays the forwarding). The
 * message bounces back to an active contract only: a transfer to an address with no code yet must stay
 * there (it is how a new wallet is funded before its first send deploys it).
 */
import { Address, beginCell, type Cell, internal, type MessageRelaxed, SendMode } from '@ton/core';
import type { AccountStatus } from './send-node.ts';

/** The send mode of every custodial transfer (a V5R1 external message must carry IGNORE_ERRORS). */
export const WALLET_SEND_MODE = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;

/** One internal message a wallet sends, in the terms `internal()` from @ton/core takes. */
export interface OutgoingMessage {
  to: Address;
  /** Nanotons attached. */
  value: bigint;
  bounce: boolean;
  /** null: an empty body. */
  body: Cell | null;
}

/** Whether a message to an account in `status` should come back if it fails there. */
export function bouncesTo(status: AccountStatus): boolean {
  return status === 'active' || status === 'frozen';
}

/** A comment as a message body: op 0, then the UTF-8 text in a snake of cells. */
export function commentCell(text: string): Cell {
  return beginCell().storeUint(0, 32).storeStringTail(text).endCell();
}

/** A TON transfer of `nanotons` to `to` (raw address), its comment (if any) as the body. */
export function tonTransferMessage(
  to: string,
  nanotons: bigint,
  receiver: AccountStatus,
  comment: string | null,
): OutgoingMessage {
  return {
    to: Address.parseRaw(to),
    value: nanotons,
    bounce: bouncesTo(receiver),
    body: comment === null ? null : commentCell(comment),
  };
}

/** The message as the wallet's transfer carries it. */
export function relaxedMessage(message: OutgoingMessage): MessageRelaxed {
  return internal({
    to: message.to,
    value: message.value,
    bounce: message.bounce,
    body: message.body ?? undefined,
  });
}
