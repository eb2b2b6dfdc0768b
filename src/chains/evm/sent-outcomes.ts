/**
 * Writes into the send history how each EVM transaction the gateway sent or broadcast ended on chain.
 * The history keeps what the API answered (`httpStatus` 201, `responseJson` `{txid}`); once the
 * transaction is mined, `responseJson` gains `status` (SUCCESS or FAILED, as the decoded lookups say)
 * and, for a failure, `error`. A 201 whose transfer reverted, or moved no token, so reads as a failure.
 *
 * Rows are followed for a day after the send: one never mined by then was dropped, and a node may no
 * longer answer for it.
 */
import type { Kysely } from 'kysely';
import type { Logger } from '../../logger.ts';
import { isoMicros } from '../../services/transaction-log.ts';
import type { Database } from '../../store/schema.ts';
import type { ChainRegistry } from '../registry.ts';
import { NETWORKS } from '../types.ts';
import type { EvmAdapter } from './adapter.ts';
import { EVM_CHAIN_NAMES, isEvmChainName } from './chains.ts';
import { transactionOutcome } from './outcome.ts';

export interface SentOutcomeOptions {
  /** How long after the send a row is followed. Default one day. */
  followMs?: number;
  /** Rows looked at per pass. Default 100. */
  batch?: number;
  now?: () => Date;
}

interface Unsettled {
  id: number;
  chain: string;
  network: string;
  txid: string;
  response_json: string | null;
  created_at: string;
}

/** A row inserted this recently may still have a lower-id neighbour not yet committed. */
const COMMIT_LAG_MS = 60_000;

export class SentOutcomes {
  readonly #followMs: number;
  readonly #batch: number;
  readonly #now: () => Date;
  /** Every row up to this id is settled or too young to skip: where the next pass starts. */
  #cursor = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly registry: ChainRegistry,
    private readonly logger: Logger,
    options: SentOutcomeOptions = {},
  ) {
    this.#followMs = options.followMs ?? 24 * 3_600_000;
    this.#batch = options.batch ?? 100;
    this.#now = options.now ?? (() => new Date());
  }

  /** One pass: every unsettled row whose transaction is mined gets its outcome; returns how many did. */
  async runOnce(): Promise<number> {
    const now = this.#now().getTime();
    let settled = 0;
    let blocked = false;
    for (const row of await this.#unsettled(now)) {
      const done = await this.#settle(row);
      if (done) settled++;
      else blocked = true;
      if (!blocked && Date.parse(row.created_at) < now - COMMIT_LAG_MS) this.#cursor = row.id;
    }
    return settled;
  }

  async #unsettled(now: number): Promise<Unsettled[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .select(['id', 'blockchain', 'network', 'txid', 'response_json', 'created_at'])
      .where('id', '>', this.#cursor)
      .where('blockchain', 'in', [...EVM_CHAIN_NAMES])
      .where('txid', 'is not', null)
      .where('http_status', '=', 201)
      .where('created_at', '>=', isoMicros(new Date(now - this.#followMs)))
      // Settled rows carry a status; JSON.stringify writes it without spaces.
      .where((eb) => eb.or([eb('response_json', 'is', null), eb('response_json', 'not like', '%"status":%')]))
      .orderBy('id')
      .limit(this.#batch)
      .execute();
    return rows.flatMap(({ blockchain, txid, ...row }) =>
      txid === null ? [] : [{ ...row, id: Number(row.id), chain: blockchain, txid }],
    );
  }

  /** True once the row has its outcome; false while the transaction is unmined or the node is unreachable. */
  async #settle(row: Unsettled): Promise<boolean> {
    const chain = row.chain;
    const network = NETWORKS.find((n) => n === row.network);
    if (!isEvmChainName(chain) || network === undefined || this.registry.isDisabled(chain, network)) {
      return false;
    }
    try {
      const adapter = this.registry.get<EvmAdapter>(chain, network);
      const [tx, receipt] = await Promise.all([
        adapter.getTransaction(row.txid),
        adapter.getReceipt(row.txid),
      ]);
      const outcome = transactionOutcome(tx, receipt);
      if (outcome.status === 'PENDING') return false;
      const response = {
        ...previousResponse(row.response_json),
        status: outcome.status,
        ...(outcome.reason === null ? {} : { error: outcome.reason }),
      };
      await this.db
        .updateTable('transactions')
        .set({ response_json: JSON.stringify(response), updated_at: isoMicros(this.#now()) })
        .where('id', '=', row.id)
        .execute();
      return true;
    } catch (error) {
      // Node trouble shows in the watcher's own logs; the row is simply tried again next pass.
      this.logger.debug({ chain, network, txid: row.txid, err: error }, 'outcome check failed');
      return false;
    }
  }
}

function previousResponse(json: string | null): Record<string, unknown> {
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
