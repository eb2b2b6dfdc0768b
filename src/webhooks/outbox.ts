import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { amountJsonLiteral } from '../chains/amount.ts';
import type { TransferEvent } from '../chains/types.ts';
import { JsonNumber, toJsonText } from '../json/json-text.ts';
import type { Database } from '../store/schema.ts';
import { displayAddress } from './chain-rules.ts';
import type { MatchableWebhook } from './matcher.ts';

/**
 * `pending`: seen unconfirmed (chains with a mempool); `transfer` follows once a block holds it.
 * `dropped`: a send the gateway answered 201 for that no node will mine (send-failures.ts).
 * `failed`: a transfer a block holds that did not pay its receiver (TON: bounced back), in place of `transfer`.
 */
export type NotificationEvent = 'transfer' | 'reverted' | 'pending' | 'dropped' | 'failed';

/** The body a subscriber receives: Chaingateway's fields, then Switchyard's. */
export interface NotificationPayload {
  id: string;
  webhook_id: string;
  from: string | null;
  to: string | null;
  /** Null for a `pending` or `dropped` transfer: no block holds it. */
  blocknumber: string | null;
  datetime: string;
  tokenid: string | null;
  type: string;
  contractaddress: string | null;
  txid: string;
  /** A JSON number, as Chaingateway sends it, written exactly with every decimal of the asset (`assetAmount`). */
  amount: JsonNumber;
  blockchain: string;
  network: string;
  amount_raw: string;
  decimals: number;
  event: NotificationEvent;
  /** The text the sender attached, on chains whose transfers carry one (TON's comment); null when none. */
  comment?: string | null;
  /** `dropped`: why the send will never be mined; `failed`: why the transfer did not pay. */
  error?: string;
}

/**
 * A stored payload read back with JSON.parse: everything but `amount`, which JSON.parse would round to a
 * double. Whoever needs the amount rebuilds it from `amount_raw` and `decimals` (`exactAmount`).
 */
export type StoredPayload = Omit<NotificationPayload, 'amount'>;

/** A notification's `amount`: base units as the exact JSON number in the asset's units, every decimal written. */
export function exactAmount(units: bigint, decimals: number): JsonNumber {
  return new JsonNumber(amountJsonLiteral(units, decimals));
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as Chaingateway writes `datetime`. */
export function chaingatewayDatetime(time: Date): string {
  return time.toISOString().slice(0, 19).replace('T', ' ');
}

export function buildPayload(
  id: string,
  webhookId: string,
  transfer: TransferEvent,
  event: NotificationEvent,
  error?: string,
): NotificationPayload {
  const shown = (address: string | null) => displayAddress(transfer.chain, transfer.network, address);
  return {
    id,
    webhook_id: webhookId,
    from: shown(transfer.from),
    to: shown(transfer.to),
    blocknumber: event === 'pending' || event === 'dropped' ? null : transfer.blockNumber.toString(),
    datetime: chaingatewayDatetime(transfer.time),
    tokenid: transfer.tokenId,
    type: transfer.type,
    contractaddress: shown(transfer.contractAddress),
    txid: transfer.txid,
    amount: exactAmount(transfer.amountRaw, transfer.decimals),
    blockchain: transfer.chain,
    network: transfer.network,
    amount_raw: transfer.amountRaw.toString(),
    decimals: transfer.decimals,
    event,
    ...(transfer.comment === undefined ? {} : { comment: transfer.comment }),
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * Writes one `transfer` or `pending` notification for a matched transfer (`failed` for one that did not
 * pay, with why), inside the watcher's block
 * transaction, under a new id (its `webhook-id` on every delivery). A block processed again hits the
 * unique (webhook, txid, log, event, block) index of the notifications still on the chain and adds
 * nothing. A notification whose transfer left the chain in a reorg (`left_chain_at`) is out of that
 * index, so a re-inclusion, even in the same block hash, is a new notification.
 */
export function enqueueNotification(
  trx: Transaction<Database>,
  webhook: Pick<MatchableWebhook, 'id' | 'userId'>,
  transfer: TransferEvent,
  event: 'transfer' | 'pending',
  now: Date,
): Promise<void> {
  // A transfer that did not pay is told as such, whatever stage it was found at.
  if (transfer.failed !== undefined) {
    return insertNotification(trx, webhook, transfer, 'failed', now, null, transfer.failed);
  }
  return insertNotification(trx, webhook, transfer, event, now, null);
}

/**
 * The `dropped` notification of a send that will never be mined, with why (`error`): at most one per
 * subscription and transaction (the unique index, as for `pending`: no block, empty hash).
 */
export function enqueueDropped(
  trx: Transaction<Database>,
  webhook: Pick<MatchableWebhook, 'id' | 'userId'>,
  transfer: TransferEvent,
  reason: string,
  now: Date,
): Promise<void> {
  return insertNotification(trx, webhook, transfer, 'dropped', now, null, reason);
}

/** The `reverted` notification of the `transfer` notification `revertsId`: at most one for each. */
export function enqueueReverted(
  trx: Transaction<Database>,
  webhook: Pick<MatchableWebhook, 'id' | 'userId'>,
  transfer: TransferEvent,
  revertsId: string,
  now: Date,
): Promise<void> {
  return insertNotification(trx, webhook, transfer, 'reverted', now, revertsId);
}

async function insertNotification(
  trx: Transaction<Database>,
  webhook: Pick<MatchableWebhook, 'id' | 'userId'>,
  transfer: TransferEvent,
  event: NotificationEvent,
  now: Date,
  revertsId: string | null,
  error?: string,
): Promise<void> {
  const id = randomUUID();
  const at = now.toISOString();
  await trx
    .insertInto('notifications')
    .values({
      id,
      webhook_id: webhook.id,
      user_id: webhook.userId,
      chain: transfer.chain,
      network: transfer.network,
      event,
      txid: transfer.txid,
      log_index: transfer.logIndex,
      block_number: Number(transfer.blockNumber),
      block_hash: transfer.blockHash,
      // Written once and signed as these bytes: toJsonText keeps the amount's every digit.
      payload: toJsonText(buildPayload(id, webhook.id, transfer, event, error)),
      status: 'pending',
      attempts: 0,
      next_attempt_at: at,
      claimed_by: null,
      claim_expires_at: null,
      response_status: null,
      response_body: null,
      block_time: transfer.time.toISOString(),
      created_at: at,
      updated_at: at,
      delivered_at: null,
      left_chain_at: null,
      reverts_id: revertsId,
    })
    .onConflict((oc) =>
      revertsId === null
        ? oc
            .columns(['webhook_id', 'txid', 'log_index', 'event', 'block_hash'])
            .where(sql<boolean>`event <> 'reverted' and left_chain_at is null`)
            .doNothing()
        : oc.column('reverts_id').doNothing(),
    )
    .execute();
}

/** TransferEvent <-> JSON for events parked until their confirmations (bigints as decimal text). */
export function serializeTransfer(transfer: TransferEvent): string {
  return JSON.stringify({
    ...transfer,
    blockNumber: transfer.blockNumber.toString(),
    amountRaw: transfer.amountRaw.toString(),
    time: transfer.time.toISOString(),
  });
}

export function deserializeTransfer(text: string): TransferEvent {
  const raw = JSON.parse(text) as Omit<TransferEvent, 'blockNumber' | 'amountRaw' | 'time'> & {
    blockNumber: string;
    amountRaw: string;
    time: string;
  };
  return {
    ...raw,
    blockNumber: BigInt(raw.blockNumber),
    amountRaw: BigInt(raw.amountRaw),
    time: new Date(raw.time),
  };
}
