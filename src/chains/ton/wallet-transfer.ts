/**
 * What a custodial wallet is told to send. Every custodial address is a V5R1 wallet of its key on the
 * network's global id; a send is one internal message from it, sent with PAY_GAS_SEPARATELY +
 * IGNORE_ERRORS (the mode wallets use: the value arrives whole, the wallet pays the forwarding). The
 * message bounces back to an active contract only: a transfer to an address with no code yet must stay
 * there (it is how a new wallet is funded before its first send deploys it).
 */
import { type Address, type Cell, internal, type MessageRelaxed, SendMode } from '@ton/core';
import type { Network } from '../types.ts';
import { commentCell } from './comment.ts';

/** Nanotons per TON. */
export const TON_DECIMALS = 9;

/** The send mode of every custodial transfer (a V5R1 external message must carry IGNORE_ERRORS). */
export const WALLET_SEND_MODE = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;

/** The network's global id, which a V5R1 wallet id (and so its address) is derived from. */
export const NETWORK_GLOBAL_ID: Readonly<Record<Network, number>> = { mainnet: -239, testnet: -3 };

/** An account's state as the node reports it. */
export type AccountStatus = 'active' | 'uninit' | 'frozen' | 'nonexist';

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

/** A TON transfer of `nanotons` to `to`, its comment (if any) as the body. */
export function tonTransferMessage(
  to: Address,
  nanotons: bigint,
  receiver: AccountStatus,
  comment: string | null,
): OutgoingMessage {
  return {
    to,
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
