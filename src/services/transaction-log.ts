import type { Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';

/** One transaction made through the gateway, successful or not, as Chaingateway lists it. */
export interface TransactionRecord {
  id: number;
  /** The user's number (users.number), an integer as Chaingateway has it; not the internal UUID. */
  user_id: number;
  blockchain: string;
  network: string;
  type: string;
  txid: string | null;
  from: string | null;
  to: string | null;
  contractaddress: string | null;
  amount: string | null;
  tokenid: string | null;
  /** The node's answer (or the error) as JSON text, as stored; Chaingateway sends it as a string. */
  responseJson: string | null;
  /** The status the API answered, as text ("201"), as Chaingateway sends it. */
  httpStatus: string | null;
  created_at: string;
  updated_at: string;
}

export interface NewTransaction {
  userId: string;
  chain: ChainName;
  network: Network;
  type: string;
  txid: string | null;
  from: string | null;
  to: string | null;
  contractaddress?: string | null;
  /** Decimal text in the asset's units (already formatted, 12 fraction digits). */
  amount: string | null;
  tokenid?: string | null;
  response: unknown;
  httpStatus: number;
  /** The idempotency key's row the send ran under (idempotency_keys.id). */
  idempotencyId?: string | null;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
}

/** The history of everything sent through the gateway: sends, broadcasts, staking, failures too. */
export class TransactionLog {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(entry: NewTransaction): Promise<void> {
    const at = isoMicros(this.now());
    await this.db
      .insertInto('transactions')
      .values({
        user_id: entry.userId,
        blockchain: entry.chain,
        network: entry.network,
        type: entry.type,
        txid: entry.txid,
        from: entry.from,
        to: entry.to,
        contractaddress: entry.contractaddress ?? null,
        amount: entry.amount,
        tokenid: entry.tokenid ?? null,
        response_json: entry.response === undefined ? null : JSON.stringify(entry.response),
        http_status: entry.httpStatus,
        idempotency_id: entry.idempotencyId ?? null,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }

  async list(
    userId: string,
    chain: ChainName,
    network: Network,
    page: number,
    perPage = 50,
  ): Promise<Page<TransactionRecord>> {
    const scoped = this.db
      .selectFrom('transactions')
      .where('transactions.user_id', '=', userId)
      .where('transactions.blockchain', '=', chain)
      .where('transactions.network', '=', network);
    const count = await scoped.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const rows = await scoped
      .innerJoin('users', 'users.id', 'transactions.user_id')
      .selectAll('transactions')
      .select('users.number as user_number')
      .orderBy('transactions.id')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute();
    return {
      items: rows.map((r) => ({
        id: Number(r.id),
        user_id: r.user_number,
        blockchain: r.blockchain,
        network: r.network,
        type: r.type,
        txid: r.txid,
        from: r.from,
        to: r.to,
        contractaddress: r.contractaddress,
        amount: r.amount,
        tokenid: r.tokenid,
        responseJson: r.response_json,
        httpStatus: r.http_status === null ? null : String(r.http_status),
        created_at: r.created_at,
        updated_at: r.updated_at,
      })),
      total: Number(count?.n ?? 0),
      page,
      perPage,
    };
  }
}

/** Laravel's timestamp form: `2024-02-13T09:00:18.000000Z` (microseconds, Z). */
export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
