import { isServedChain } from '../chains/families.ts';
import type { BackgroundTask, FamilyModule } from '../chains/family.ts';
import { PeriodicPass } from '../chains/periodic-pass.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type ChainName, NETWORKS } from '../chains/types.ts';
import type { Logger } from '../logger.ts';
import type { OpenSend, TransactionLog } from './transaction-log.ts';

export interface SendOutcomesDeps {
  transactions: TransactionLog;
  registry: ChainRegistry;
  familyOf: (chain: ChainName) => FamilyModule | undefined;
  logger: Logger;
  /** How long after the send a row is followed. Default one day. */
  followMs?: number;
  /** Rows looked at per pass. Default 100. */
  batch?: number;
  now?: () => Date;
}

/** A row inserted this recently may still have a lower-id neighbour not yet committed. */
const COMMIT_LAG_MS = 60_000;

/**
 * Writes into the send history how each transaction the gateway sent or broadcast ended on chain, for
 * every family: the history keeps what the API answered (`httpStatus` 201, `responseJson` `{txid}`); once
 * the family calls the transaction final (`FamilyModule.settling.outcome`), `responseJson` gains `status`
 * (SUCCESS or FAILED) and, for a failure, `error`.
 *
 * Rows are followed for a day after the send: one not final by then was dropped, and a node may no longer
 * answer for it. Runs at start and periodically where the watcher role runs; several instances may run
 * it at once (a row takes its outcome once).
 */
export class SendOutcomes implements BackgroundTask {
  private readonly passes = new PeriodicPass(
    () => this.runOnce(),
    // The database is down or restarting: the next pass tries again.
    (error) => this.deps.logger.warn({ err: error }, 'send outcomes not recorded'),
  );
  private readonly followMs: number;
  private readonly batch: number;
  private readonly now: () => Date;
  /** Every row up to this id has its outcome or is too young to skip: where the next pass starts. */
  private cursor = 0;

  constructor(private readonly deps: SendOutcomesDeps) {
    this.followMs = deps.followMs ?? 24 * 3_600_000;
    this.batch = deps.batch ?? 100;
    this.now = deps.now ?? (() => new Date());
  }

  start(intervalMs = 30_000): void {
    this.passes.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass: every open row whose transaction is final gets its outcome; returns how many did. */
  async runOnce(): Promise<number> {
    const now = this.now().getTime();
    const since = new Date(now - this.followMs);
    let recorded = 0;
    let blocked = false;
    let after = this.cursor;
    for (;;) {
      const rows = await this.deps.transactions.open(after, since, this.batch);
      for (const row of rows) {
        if (await this.record(row)) recorded++;
        else blocked = true;
        if (!blocked && Date.parse(row.createdAt) < now - COMMIT_LAG_MS) this.cursor = row.id;
      }
      if (rows.length < this.batch) break;
      after = rows.at(-1)?.id ?? after;
    }
    return recorded;
  }

  /** True once the row has its outcome; false while the transaction is not final or the node cannot say. */
  private async record(row: OpenSend): Promise<boolean> {
    const network = NETWORKS.find((n) => n === row.network);
    const chain = isServedChain(row.chain) ? row.chain : undefined;
    const family = chain === undefined ? undefined : this.deps.familyOf(chain);
    if (chain === undefined || family === undefined || network === undefined) return false;
    if (!this.deps.registry.networksOf(chain).includes(network)) return false;
    if (this.deps.registry.isDisabled(chain, network)) return false;
    try {
      const adapter = this.deps.registry.get(chain, network);
      const ageMs = this.now().getTime() - Date.parse(row.createdAt);
      const outcome = await family.settling.outcome(adapter, row.txid, ageMs);
      if (outcome.status === 'PENDING') return false;
      await this.deps.transactions.recordOutcome(row.id, outcome.status, outcome.reason);
      return true;
    } catch (error) {
      // Node trouble shows in the node monitor's logs; the row is looked at again next pass.
      this.deps.logger.debug({ chain, network, txid: row.txid, err: error }, 'outcome check failed');
      return false;
    }
  }
}
