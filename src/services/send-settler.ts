import type { BackgroundTask, FamilyModule } from '../chains/family.ts';
import { PeriodicPass } from '../chains/periodic-pass.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { type ChainName, NETWORKS } from '../chains/types.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { TransactionLog, UnsettledSend } from './transaction-log.ts';

/** What a settled failure answers: the transaction never reached the chain. */
export const NOT_SENT_STATUS = 410;
export const NOT_SENT_MESSAGE =
  'Not sent: the transaction never reached the chain (the gateway stopped before the node had it, or the node dropped it); nothing was spent, send it again';

/** Rows read per page of a pass. */
const PAGE = 100;

export interface SendSettlerDeps {
  transactions: TransactionLog;
  registry: ChainRegistry;
  familyOf: (chain: ChainName) => FamilyModule | undefined;
  logger: Logger;
  now?: () => Date;
}

export interface SettleReport {
  /** The node knows the transaction: the row got the 201 the request would have answered. */
  landed: number;
  /** The node still did not know it past the family's grace: the row got the failure. */
  failed: number;
  /** Too young to call, or the node could not say: looked at again next pass. */
  waiting: number;
}

/**
 * Settles the sends whose process died between their intent (the history row written before the node got
 * the transaction) and the node's answer, for every family at once: the family says whether the node
 * knows the txid (`FamilyModule.settling`); known, the row becomes the 201 it would have been; unknown
 * past the family's grace, the transaction can no longer land, and the row becomes a failure. A live
 * request answers its own row first; whoever writes first wins, the other leaves it.
 *
 * Runs at start and periodically where the watcher role runs; several instances may run it at once.
 */
export class SendSettler implements BackgroundTask {
  private readonly passes = new PeriodicPass(
    () => this.runOnce(),
    // The database is down or restarting: the next pass tries again.
    (error) => this.deps.logger.warn({ err: error }, 'sends not settled'),
  );
  private readonly now: () => Date;
  /**
   * The grace counts from here at the earliest: after a time when no settler ran, the work beside it
   * (EVM's nonce reconciler broadcasting its stored sends again) gets the grace too before a row fails.
   */
  private readonly since: number;

  constructor(private readonly deps: SendSettlerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.since = this.now().getTime();
  }

  start(intervalMs = 5_000): void {
    this.passes.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass over every row without an answer. */
  async runOnce(): Promise<SettleReport> {
    const report: SettleReport = { landed: 0, failed: 0, waiting: 0 };
    let after = 0;
    for (;;) {
      const rows = await this.deps.transactions.unsettled(after, PAGE);
      for (const row of rows) report[await this.settle(row)]++;
      if (rows.length < PAGE) break;
      after = rows.at(-1)?.id ?? after;
    }
    if (report.landed + report.failed > 0)
      this.deps.logger.info({ ...report }, 'sends settled from the chain');
    return report;
  }

  private async settle(row: UnsettledSend): Promise<keyof SettleReport> {
    const network = NETWORKS.find((n) => n === row.network);
    const chain = row.chain;
    const family = this.deps.familyOf(chain);
    if (family === undefined || network === undefined) return 'waiting';
    if (this.deps.registry.isDisabled(chain, network)) return 'waiting';
    let known: boolean;
    try {
      known = await family.settling.known(this.deps.registry.get(chain, network), row.txid);
    } catch (error) {
      // Node trouble shows in the node monitor's logs; the row is looked at again next pass.
      this.deps.logger.debug({ chain: row.chain, network, txid: row.txid, err: error }, 'send not settled');
      return 'waiting';
    }
    if (known) {
      const answer = { txid: row.txid, response: family.sends.sentResponse(row.txid), httpStatus: 201 };
      return (await this.deps.transactions.answer(row.id, answer)) ? 'landed' : 'waiting';
    }
    const from = Math.max(Date.parse(row.createdAt), this.since);
    if (this.now().getTime() - from < family.settling.graceMs) return 'waiting';
    const failure = family.sends.failureRow(new ApiError(NOT_SENT_STATUS, NOT_SENT_MESSAGE), row.txid);
    // The row keeps its txid, whatever the family's refusals name: it is the transaction that was looked for.
    return (await this.deps.transactions.answer(row.id, { ...failure, txid: row.txid }))
      ? 'failed'
      : 'waiting';
  }
}
