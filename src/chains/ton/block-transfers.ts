/**
 * The TON and jetton transfers of transactions, as the indexer answers them (toncenter.ts), for the
 * webhook watcher and the transaction reads.
 *
 * TON: an internal message's value that stayed with the account it came to. That is a transaction whose
 * inbound message carries value, is not itself a bounce, and has no bounce phase (the value was not sent
 * back); its compute phase may have been skipped, as it is for a wallet not deployed yet, which still
 * keeps what it is sent. The TEP-74 messages that move TON only as gas or change (internal_transfer,
 * transfer_notification, excesses, …) are the jetton's plumbing, not payments.
 *
 * Jettons: a successful internal_transfer into a jetton wallet its master confirms (jettons.ts): from the
 * owner the body names, to the wallet's owner, in the master's jetton, the body's amount, with the
 * forward payload's comment.
 *
 * A comment is read from the body (the indexer's own reading where the body is missing).
 *
 * The watcher reports a transfer under its trace's id (trace-ids.ts), the id the send that made it
 * answered, not under the hash of the transaction that received it.
 */
import type { TransferEvent } from '../types.ts';
import { tonAddressOf } from './address.ts';
import { type Jettons, reportedDecimals } from './jettons.ts';
import { bodyComment, JETTON_OPS, JETTON_PLUMBING, jettonInternalTransfer } from './message-bodies.ts';
import { tonCore } from './ton-core.ts';
import type { TonTransaction } from './toncenter.ts';

export const NANOTON_DECIMALS = 9;

/** One transfer a transaction made, as the gateway reads it. */
export interface TonTransfer {
  type: 'TON' | 'JETTON';
  /** The hash of the transaction that received it, 64 lower-case hex. */
  hash: string;
  /** Raw addresses, lower case (`0:abcd…`), the form webhooks compare. */
  from: string | null;
  to: string;
  /** The jetton's master; null for TON. */
  contract: string | null;
  amount: bigint;
  decimals: number;
  comment: string | null;
  /**
   * Whether the value stayed: false for a TON transfer the receiver sent back (a bounce) or a jetton
   * transfer whose transaction failed. One that did not stay is reported to webhooks as `failed`.
   */
  stayed: boolean;
}

/** A transaction hash as toncenter writes it (base64) in the gateway's form: 64 lower-case hex. */
export function hexHash(base64: string): string {
  return Buffer.from(base64, 'base64').toString('hex');
}

/** A raw address in one spelling (lower-case hex); null stays null. */
export function comparableAddress(address: string | null): string | null {
  if (address === null) return null;
  const parsed = tonAddressOf(address);
  return parsed === null ? address : `${parsed.workchain}:${parsed.hash}`;
}

/** Whether the transaction ran to its end: compute phase succeeded (or was not needed) and no action failed. */
export function succeeded(tx: TonTransaction): boolean {
  return !tx.aborted && tx.computeSuccess !== false && tx.actionSuccess !== false;
}

/** The transfers one transaction made (at most one: a transaction has one inbound message). */
export async function transactionTransfers(tx: TonTransaction, jettons: Jettons): Promise<TonTransfer[]> {
  const message = tx.inMsg;
  if (message === null || message.source === null || message.bounced === true) return [];
  const core = await tonCore();
  const hash = hexHash(tx.hash);
  const to = comparableAddress(tx.account)!;
  if (message.opcode === JETTON_OPS.internalTransfer) {
    const body = jettonInternalTransfer(core, message.body);
    if (body === null) return [];
    const wallet = await jettons.wallet(to);
    if (wallet === null) return [];
    const master = await jettons.master(wallet.master);
    if (master === null) return [];
    return [
      {
        type: 'JETTON',
        hash,
        from: comparableAddress(body.from),
        to: comparableAddress(wallet.owner)!,
        contract: comparableAddress(wallet.master),
        amount: body.amount,
        decimals: reportedDecimals(master),
        comment: body.comment,
        stayed: succeeded(tx),
      },
    ];
  }
  if (message.value === null || message.value === 0n) return [];
  if (message.opcode !== null && JETTON_PLUMBING.has(message.opcode)) return [];
  return [
    {
      type: 'TON',
      hash,
      from: comparableAddress(message.source),
      to,
      contract: null,
      amount: message.value,
      decimals: NANOTON_DECIMALS,
      comment: bodyComment(core, message.body) ?? message.comment,
      stayed: !tx.bouncePhase,
    },
  ];
}

/**
 * A transfer as the watcher reports it, with its comment (null when it carries none), under its trace's
 * id. One trace may pay several watched addresses in one block (a wallet message with several transfers),
 * so `logIndex` is the receiving transaction's position in the block's list: each of the trace's
 * transfers is its own notification, and every read of the block numbers them alike.
 */
export function transferEvent(
  transfer: TonTransfer,
  id: { txid: string; logIndex: number },
  block: { chain: string; network: TransferEvent['network']; number: bigint; hash: string; time: Date },
): TransferEvent {
  return {
    chain: block.chain,
    network: block.network,
    blockNumber: block.number,
    blockHash: block.hash,
    txid: id.txid,
    logIndex: id.logIndex,
    from: transfer.from,
    to: transfer.to,
    contractAddress: transfer.contract,
    tokenId: null,
    type: transfer.type,
    amountRaw: transfer.amount,
    decimals: transfer.decimals,
    time: block.time,
    comment: transfer.comment,
    ...(transfer.stayed ? {} : { failed: FAILED_TRANSFER[transfer.type] }),
  };
}

/** Why a transfer that did not stay did not pay, as its `failed` notification says. */
const FAILED_TRANSFER: Record<TonTransfer['type'], string> = {
  TON: 'bounced: the receiving contract sent the TON back (less fees)',
  JETTON:
    "refused: the receiver's jetton wallet failed the transfer, and the jettons went back to the sender",
};
