import type { Kysely } from 'kysely';
import { nodeCallsKey, TroubleLog } from '../../health/trouble-log.ts';
import type { Logger } from '../../logger.ts';
import { NodeError } from '../node-client.ts';
import { PeriodicPass } from '../periodic-pass.ts';
import type { DroppedSendNotices, SendHistory } from '../ports.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import { EvmAdapter } from './adapter.ts';
import { isEvmChainName } from './chains.ts';
import { DroppedSends } from './dropped-sends.ts';
import { NonceManager, type NonceManagerOptions } from './nonce-manager.ts';
import type { NonceDialect } from './nonce-store.ts';

/**
 * Settles every address with unsettled nonces, at start and then periodically: sent transactions the
 * node lost are broadcast again, mined ones are forgotten, abandoned reservations are freed. Without it a
 * transaction dropped from a node's pool would hold up every later send from its address. The same pass
 * writes into the send history how given-up ones ended (dropped-sends.ts); how mined ones ended is the
 * shared send outcomes' work (services/send-outcomes.ts).
 */
export class NonceReconciler {
  private readonly nonces: NonceManager;
  private readonly history: SendHistory | null;
  private readonly dropped: DroppedSends | null;
  private readonly passes = new PeriodicPass(
    () => this.runOnce(),
    (error) => this.warn(error, {}, 'nonce reconciler pass failed'),
  );
  /** A node that is down is one warning for all its callers (trouble-log.ts), not one per pass. */
  private readonly trouble: TroubleLog;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: any Kysely database that has run migration 0003
    private readonly db: Kysely<any>,
    dialect: NonceDialect,
    private readonly registry: ChainRegistry,
    private readonly logger: Logger,
    /**
     * `history` is the send history: only a transaction whose intent it has is broadcast again, and a
     * dropped one is failed there (without it, every stored transaction is broadcast again and a dropped
     * one is only logged). `droppedNotices` tells the sender's subscriptions of a dropped send (a `dropped`
     * notification); without it the send is only failed in the history.
     */
    options: NonceManagerOptions & {
      troubleLog?: TroubleLog;
      droppedNotices?: DroppedSendNotices;
      history?: SendHistory;
    } = {},
  ) {
    this.trouble = options.troubleLog ?? new TroubleLog();
    this.nonces = new NonceManager(db, dialect, options);
    this.history = options.history ?? null;
    this.dropped =
      options.history === undefined
        ? null
        : new DroppedSends(options.history, options.droppedNotices ?? null, logger, options.now);
  }

  start(intervalMs = 30_000): void {
    this.passes.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** Settles pending nonces; a failing node only skips its part. */
  async runOnce(): Promise<void> {
    try {
      await this.reconcileNonces();
    } catch (error) {
      // The database is down or restarting: the next pass tries again. Thrown, it would end the process.
      this.warn(error, {}, 'nonces not reconciled');
    }
  }

  /** One pass over every address that has pending nonces. */
  private async reconcileNonces(): Promise<void> {
    const keys = (await this.db
      .selectFrom('evm_pending')
      .select(['chain', 'network', 'address'])
      .distinct()
      .execute()) as { chain: string; network: Network; address: string }[];
    for (const key of keys) {
      if (!isEvmChainName(key.chain) || this.registry.isDisabled(key.chain, key.network)) continue;
      try {
        const adapter = this.registry.adapterOf(key.chain, key.network, EvmAdapter);
        const { history } = this;
        const { dropped, ...report } = await this.nonces.reconcile(
          key,
          adapter,
          history === null ? undefined : (hash) => history.has(hash),
        );
        if (report.rebroadcast + report.released > 0)
          this.logger.info({ ...key, ...report }, 'nonces reconciled');
        for (const send of dropped) {
          if (this.dropped === null) this.logger.warn({ ...key, txid: send.txHash }, send.reason);
          else await this.dropped.record(adapter, send);
        }
      } catch (error) {
        this.warn(error, key, 'nonce reconcile failed');
      }
    }
  }

  private warn(error: unknown, fields: object, message: string): void {
    if (error instanceof NodeError) {
      const key = nodeCallsKey(error.chain, error.network);
      this.trouble.failed(
        key,
        this.logger,
        { ...fields, chain: error.chain, network: error.network },
        error,
        message,
      );
    } else {
      this.logger.warn({ ...fields, err: error }, message);
    }
  }
}
