import type { Kysely } from 'kysely';
import { type ChainName, type Network, networkNamed } from '../chains/types.ts';
import type { JsonNumber } from '../json/json-text.ts';
import type { Page } from '../services/transaction-log.ts';
import type { Database } from '../store/schema.ts';
import { displayAddress } from './chain-rules.ts';
import { exactAmount, type StoredPayload } from './outbox.ts';

/** A notification as the log lists it: Chaingateway's item plus Switchyard's delivery details. */
export interface NotificationOut {
  id: string;
  webhook_id: string;
  event: string;
  txid: string;
  type: string;
  contractaddress: string | null;
  from: string | null;
  to: string | null;
  tokenid: string | null;
  /** Exact, as in the payload: write it with toJsonText, which keeps every digit. */
  amount: JsonNumber;
  amount_raw: string;
  blocknumber: string | null;
  status: string;
  url: string;
  success: boolean;
  attempts: number;
  response_status: number | null;
  response: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
  network: string;
  blockchain: string;
}

export const NOTIFICATIONS_PER_PAGE = 15;

/** The delivery log of a user's notifications on one chain and network. */
export class NotificationLog {
  constructor(private readonly db: Kysely<Database>) {}

  async list(
    userId: string,
    chain: ChainName,
    network: Network,
    page: number,
    failedOnly: boolean,
  ): Promise<Page<NotificationOut>> {
    let scoped = this.db
      .selectFrom('notifications')
      .innerJoin('webhooks', 'webhooks.id', 'notifications.webhook_id')
      .where('notifications.user_id', '=', userId)
      .where('notifications.chain', '=', chain)
      .where('notifications.network', '=', network);
    if (failedOnly) scoped = scoped.where('notifications.status', '=', 'failed');
    const count = await scoped.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const rows = await scoped
      .selectAll('notifications')
      .select('webhooks.url')
      .orderBy('notifications.created_at', 'desc')
      .orderBy('notifications.id')
      .limit(NOTIFICATIONS_PER_PAGE)
      .offset((page - 1) * NOTIFICATIONS_PER_PAGE)
      .execute();
    return {
      items: rows.map((row) => {
        const payload = JSON.parse(row.payload) as StoredPayload;
        return {
          id: row.id,
          webhook_id: row.webhook_id,
          event: row.event,
          txid: row.txid,
          type: payload.type,
          // Payloads written before addresses were shown checksummed get the same form here.
          contractaddress: displayAddress(row.chain, networkNamed(row.network), payload.contractaddress),
          from: displayAddress(row.chain, networkNamed(row.network), payload.from),
          to: displayAddress(row.chain, networkNamed(row.network), payload.to),
          tokenid: payload.tokenid,
          amount: exactAmount(BigInt(payload.amount_raw), payload.decimals),
          amount_raw: payload.amount_raw,
          blocknumber: payload.blocknumber,
          status: row.status,
          url: row.url,
          success: row.status === 'delivered',
          attempts: row.attempts,
          response_status: row.response_status,
          response: row.response_body,
          next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
          delivered_at: row.delivered_at,
          created_at: row.created_at,
          updated_at: row.updated_at,
          network: row.network,
          blockchain: row.chain,
        };
      }),
      total: Number(count?.n ?? 0),
      page,
      perPage: NOTIFICATIONS_PER_PAGE,
    };
  }
}
