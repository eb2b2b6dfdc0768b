/**
 * A transaction as the reads tell it: what it received (block-transfers.ts) and what it sent, TON and
 * jettons, each with its comment and whether it bounced, and how it ended.
 *
 * What a transaction sent is known only from the transactions its messages started: a TON message
 * bounced when its receiver's transaction had a bounce phase; a jetton transfer asked of the sender's
 * jetton wallet went through when that wallet's transaction succeeded. A message no transaction has
 * received yet reads `bounced: null`.
 */
import { assetAmount, formatAmount } from '../amount.ts';
import type { Network } from '../types.ts';
import { friendlyAddress, tonAddressOf, walletAddress } from './address.ts';
import {
  comparableAddress,
  hexHash,
  NANOTON_DECIMALS,
  succeeded,
  transactionTransfers,
} from './block-transfers.ts';
import { type Jettons, reportedDecimals } from './jettons.ts';
import { bodyComment, JETTON_OPS, JETTON_PLUMBING, jettonTransferRequest } from './message-bodies.ts';
import { tonCore } from './ton-core.ts';
import type { Toncenter, TonMessage, TonTransaction } from './toncenter.ts';

/** How many sent messages a read follows to their receivers (a V5 wallet may send up to 255). */
const FOLLOWED_MESSAGES = 16;

export type TransactionStatus = 'success' | 'failed' | 'aborted';

export interface DecodedTransfer {
  type: 'TON' | 'JETTON';
  direction: 'in' | 'out';
  from: string | null;
  to: string | null;
  /** The jetton's master; null for TON. */
  jetton: string | null;
  amount: string;
  amount_raw: string;
  decimals: number;
  comment: string | null;
  /** Sent back (TON) or refused (a jetton transfer); null while not known yet. */
  bounced: boolean | null;
}

export interface TransactionOutcome {
  /** The id of the transaction's trace (trace-ids.ts): what the send that started it answered. */
  txid: string;
  /** This transaction's own hash, 64 hex. */
  hash: string;
  account: string;
  lt: string;
  mc_block_seqno: number | null;
  time: number;
  status: TransactionStatus;
  aborted: boolean;
  compute: { skipped: boolean; success: boolean | null; exit_code: number | null };
  action: { success: boolean | null; result_code: number | null };
  /** The inbound message was a bounce: value coming back from a failed transfer. */
  bounce_received: boolean;
  /** The inbound message's value went back to its sender. */
  bounced: boolean;
  fee: string;
  fee_nanotons: string;
}

/** How a transaction ended: `aborted` (the compute or action phase failed, nothing changed), `failed`, or `success`. */
export function transactionStatus(tx: TonTransaction): TransactionStatus {
  if (succeeded(tx)) return 'success';
  // A wallet not deployed yet keeps what it is sent although its compute phase was skipped.
  if (tx.computeSkipped && tx.actionSuccess !== false) return 'success';
  return tx.aborted ? 'aborted' : 'failed';
}

/** How `tx` ended, named by its trace's id `txid` and its own hash. */
export function transactionOutcome(tx: TonTransaction, txid: string, network: Network): TransactionOutcome {
  return {
    txid,
    hash: hexHash(tx.hash),
    account: shown(tx.account, network),
    lt: tx.lt.toString(),
    mc_block_seqno: tx.mcBlockSeqno,
    time: tx.now,
    status: transactionStatus(tx),
    aborted: tx.aborted,
    compute: { skipped: tx.computeSkipped, success: tx.computeSuccess, exit_code: tx.exitCode },
    action: { success: tx.actionSuccess, result_code: tx.actionResultCode },
    bounce_received: tx.inMsg?.bounced === true,
    bounced: tx.bouncePhase,
    fee: formatAmount(tx.totalFees, NANOTON_DECIMALS),
    fee_nanotons: tx.totalFees.toString(),
  };
}

/** An address as the reads show it on `network`: a wallet's form (`UQ…`/`0Q…`). */
function shown(address: string, network: Network): string {
  const parsed = tonAddressOf(address);
  return parsed === null ? address : walletAddress(parsed, network);
}

/** A contract (a jetton master) as wallets show it: bounceable (`EQ…`/`kQ…`). */
export function shownContract(address: string, network: Network): string {
  const parsed = tonAddressOf(address);
  return parsed === null
    ? address
    : friendlyAddress(parsed, { bounceable: true, testOnly: network === 'testnet' });
}

/** Every transfer a transaction received or sent. */
export async function decodedTransfers(
  tx: TonTransaction,
  toncenter: Toncenter,
  jettons: Jettons,
  network: Network,
): Promise<DecodedTransfer[]> {
  const show = (address: string | null) => (address === null ? null : shown(address, network));
  const received = (await transactionTransfers(tx, jettons)).map(
    (t): DecodedTransfer => ({
      type: t.type,
      direction: 'in',
      from: show(t.from),
      to: show(t.to),
      jetton: t.contract === null ? null : shownContract(t.contract, network),
      amount: assetAmount(t.amount, t.decimals),
      amount_raw: t.amount.toString(),
      decimals: t.decimals,
      comment: t.comment,
      bounced: !t.stayed,
    }),
  );
  const sent: DecodedTransfer[] = [];
  for (const message of tx.outMsgs.slice(0, FOLLOWED_MESSAGES)) {
    const transfer = await sentTransfer(tx, message, toncenter, jettons, network);
    if (transfer !== null) sent.push(transfer);
  }
  return [...received, ...sent];
}

async function sentTransfer(
  tx: TonTransaction,
  message: TonMessage,
  toncenter: Toncenter,
  jettons: Jettons,
  network: Network,
): Promise<DecodedTransfer | null> {
  if (message.destination === null || message.value === null) return null;
  const core = await tonCore();
  const landing = async () => (await toncenter.transactionsByMessage(message.hash, 'in'))[0] ?? null;
  if (message.opcode === JETTON_OPS.transfer) {
    const request = jettonTransferRequest(core, message.body);
    const wallet = request === null ? null : await jettons.wallet(comparableAddress(message.destination)!);
    if (
      request === null ||
      wallet === null ||
      comparableAddress(wallet.owner) !== comparableAddress(tx.account)
    ) {
      return null;
    }
    const master = await jettons.master(wallet.master);
    if (master === null) return null;
    const landed = await landing();
    return {
      type: 'JETTON',
      direction: 'out',
      from: shown(tx.account, network),
      to: request.destination === null ? null : shown(request.destination, network),
      jetton: shownContract(wallet.master, network),
      amount: assetAmount(request.amount, reportedDecimals(master)),
      amount_raw: request.amount.toString(),
      decimals: reportedDecimals(master),
      comment: request.comment,
      bounced: landed === null ? null : !succeeded(landed),
    };
  }
  if (message.value === 0n || (message.opcode !== null && JETTON_PLUMBING.has(message.opcode))) return null;
  const landed = await landing();
  return {
    type: 'TON',
    direction: 'out',
    from: shown(tx.account, network),
    to: shown(message.destination, network),
    jetton: null,
    amount: assetAmount(message.value, NANOTON_DECIMALS),
    amount_raw: message.value.toString(),
    decimals: NANOTON_DECIMALS,
    comment: bodyComment(core, message.body) ?? message.comment,
    bounced: landed === null ? null : landed.bouncePhase,
  };
}
