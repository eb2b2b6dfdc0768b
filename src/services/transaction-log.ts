import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database, TransactionsTable } from '../store/schema.ts';

/** The columns a listed transaction shows as they are stored. */
type StoredTransactionColumns = Pick<
  TransactionsTable,
  | 'blockchain'
  | 'network'
  | 'type'
  | 'txid'
  | 'from'
  | 'to'
  | 'contractaddress'
  | 'amount'
  | 'tokenid'
  | 'created_at'
  | 'updated_at'
>;

/** One transaction made through the gateway, successful or not, as Chaingateway lists it. */
export interface TransactionRecord extends StoredTransactionColumns {
  id: number;
  /** The user's number (users.number), an integer as Chaingateway has it; not the internal UUID. */
  user_id: number;
  /** The node's answer (or the error) as JSON text, as stored; Chaingateway sends it as a string. */
  responseJson: string | null;
  /** The status the API answered, as text ("201"), as Chaingateway sends it. */
  httpStatus: string | null;
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
  /** Decimal text in the asset's units, already formatted (`assetAmount`: the asset's decimals). */
  amount: string | null;
  tokenid?: string | null;
  response: unknown;
  httpStatus: number;
  /** The idempotency key's row the send ran under (idempotency_keys.id). */
  idempotencyId?: string | null;
}

/** A send about to reach the node: its row without an answer yet. */
export type NewIntent = Omit<NewTransaction, 'response' | 'httpStatus'> & { txid: string };

/** A send whose row has no answer yet: its process is between the intent and the node's answer, or died there. */
export interface UnsettledSend {
  id: number;
  chain: string;
  network: string;
  txid: string;
  createdAt: string;
}

/** A send answered 201 whose row has no outcome yet (SUCCESS or FAILED in its `responseJson`). */
export interface OpenSend {
  id: number;
  chain: string;
  network: string;
  txid: string;
  createdAt: string;
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
    await this.insert(entry);
  }

  /**
   * Records a send before the node gets it: the row has the txid and no answer (`http_status` null)
   * until `answer` gives it one, or the settler does after a restart. Answers the row's id.
   */
  recordIntent(entry: NewIntent): Promise<number> {
    return this.insert({ ...entry, response: undefined, httpStatus: null });
  }

  private async insert(entry: Omit<NewTransaction, 'httpStatus'> & { httpStatus: number | null }) {
    const at = isoMicros(this.now());
    const row = await this.db
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
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Whether a send's row (its intent or its answer) names `txid`: the intent is written before the node gets it. */
  async has(txid: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('transactions')
      .select('id')
      .where('txid', 'in', [txid, txid.toLowerCase()])
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A send signed again (another nonce) before the node took the first: the row follows the new txid. */
  async retarget(id: number, txid: string): Promise<void> {
    await this.db
      .updateTable('transactions')
      .set({ txid, updated_at: isoMicros(this.now()) })
      .where('id', '=', id)
      .where('http_status', 'is', null)
      .execute();
  }

  /**
   * Gives a send's row its answer, with the history fields as they ended (a token's amount is known once
   * built); false when it already had one (the settler came first, and the chain is the truth).
   */
  async answer(
    id: number,
    answer: { txid: string | null; response: unknown; httpStatus: number },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('transactions')
      .set({
        txid: answer.txid,
        response_json: answer.response === undefined ? null : JSON.stringify(answer.response),
        http_status: answer.httpStatus,
        updated_at: isoMicros(this.now()),
      })
      .where('id', '=', id)
      .where('http_status', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Sends without an answer yet, oldest first, after row `afterId`. */
  async unsettled(afterId: number, limit: number): Promise<UnsettledSend[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'blockchain', 'network', 'txid', 'created_at'])
      .where('http_status', 'is', null)
      .where('txid', 'is not', null)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.flatMap((r) =>
      r.txid === null
        ? []
        : [
            {
              id: Number(r.id),
              chain: r.blockchain,
              network: r.network,
              txid: r.txid,
              createdAt: r.created_at,
            },
          ],
    );
  }

  /** Sends answered 201 without an outcome, recorded since `since`, oldest first, after row `afterId`. */
  async open(afterId: number, since: Date, limit: number): Promise<OpenSend[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'blockchain', 'network', 'txid', 'created_at'])
      .where('id', '>', afterId)
      .where('txid', 'is not', null)
      .where('http_status', '=', 201)
      .where('created_at', '>=', isoMicros(since))
      .where(withoutOutcome)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.flatMap(({ id, blockchain, network, txid, created_at }) =>
      txid === null ? [] : [{ id: Number(id), chain: blockchain, network, txid, createdAt: created_at }],
    );
  }

  /**
   * Writes how a send ended into its row: `responseJson` gains `status` and, for a failure, `error`;
   * `httpStatus` stays what the API answered. False when the row already had an outcome.
   */
  async recordOutcome(id: number, status: 'SUCCESS' | 'FAILED', reason: string | null): Promise<boolean> {
    const row = await this.db
      .selectFrom('transactions')
      .select('response_json')
      .where('id', '=', id)
      .where(withoutOutcome)
      .executeTakeFirst();
    if (row === undefined) return false;
    const response = {
      ...responseObject(row.response_json),
      status,
      ...(reason === null ? {} : { error: reason }),
    };
    const result = await this.db
      .updateTable('transactions')
      .set({ response_json: JSON.stringify(response), updated_at: isoMicros(this.now()) })
      .where('id', '=', id)
      .where(withoutOutcome)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async list(
    userId: string,
    chain: ChainName,
    network: Network,
    page: number,
    order: 'asc' | 'desc' = 'asc',
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
      .orderBy('transactions.id', order)
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

  /**
   * The sends answered 201 as `txid` that will never be mined (a node dropped them) are failed: their
   * `responseJson` gains `status: FAILED` and `error: reason`, as a mined failure's does; `httpStatus`
   * stays what the API answered. Rows that already have an outcome are left alone. Returns the rows
   * marked, so their senders can be told.
   */
  async markFailed(chain: ChainName, network: Network, txid: string, reason: string): Promise<FailedSend[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'user_id', 'response_json'])
      .where('blockchain', '=', chain)
      .where('network', '=', network)
      .where('txid', '=', txid)
      .where('http_status', '=', 201)
      .where(withoutOutcome)
      .execute();
    const at = isoMicros(this.now());
    for (const row of rows) {
      const response = { ...responseObject(row.response_json), status: 'FAILED', error: reason };
      await this.db
        .updateTable('transactions')
        .set({ response_json: JSON.stringify(response), updated_at: at })
        .where('id', '=', row.id)
        .execute();
    }
    return rows.map((row) => ({ id: Number(row.id), userId: row.user_id }));
  }

  /** Why the user's send `txid` failed, as the history has it (`error`); null when it has no failure. */
  async failureOf(userId: string, chain: ChainName, network: Network, txid: string): Promise<string | null> {
    const rows = await this.db
      .selectFrom('transactions')
      .select('response_json')
      .where('user_id', '=', userId)
      .where('blockchain', '=', chain)
      .where('network', '=', network)
      .where('txid', 'in', [...new Set([txid, txid.toLowerCase()])])
      .where('response_json', 'like', '%"status":"FAILED"%')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    const error = responseObject(rows[0]?.response_json ?? null)['error'];
    return typeof error === 'string' ? error : null;
  }
}

/** A row without an outcome: an outcome is a `status` in the answer, which JSON.stringify writes without spaces. */
function withoutOutcome(eb: ExpressionBuilder<Database, 'transactions'>) {
  return eb.or([eb('response_json', 'is', null), eb('response_json', 'not like', '%"status":%')]);
}

/** A history row `markFailed` marked: its id and its user (users.id). */
export interface FailedSend {
  id: number;
  userId: string;
}

/** The stored answer as an object; anything else (not JSON, not an object) as an empty one. */
export function responseObject(json: string | null): Record<string, unknown> {
  if (json === null) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? Object.fromEntries(Object.entries(parsed))
      : {};
  } catch {
    return {};
  }
}

/** Laravel's timestamp form: `2024-02-13T09:00:18.000000Z` (microseconds, Z). */
export function isoMicros(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
