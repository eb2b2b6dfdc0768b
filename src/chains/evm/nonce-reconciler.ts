import type { Kysely } from 'kysely';
import { nodeCallsKey, TroubleLog } from '../../health/trouble-log.ts';
import type { Logger } from '../../logger.ts';
import { NodeError } from '../node-client.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import type { EvmAdapter } from './adapter.ts';
import { isEvmChainName } from './chains.ts';
import { NonceManager, type NonceManagerOptions } from './nonce-manager.ts';
import type { NonceDialect } from './nonce-store.ts';
import { SentOutcomes } from './sent-outcomes.ts';

/**
 * Settles every address with unsettled nonces, at start and then periodically: sent transactions the
 * node lost are broadcast again, mined ones are forgotten, abandoned reservations are freed. Without it a
 * transaction dropped from a node's pool would hold up every later send from its address. The same pass
 * writes into the send history how mined transactions ended (sent-outcomes.ts): this is where the
 * gateway follows its sends until they are mined.
 */
export class NonceReconciler {
  private readonly nonces: NonceManager;
  private readonly outcomes: SentOutcomes;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A node that is down is one warning for all its callers (trouble-log.ts), not one per pass. */
  private readonly trouble: TroubleLog;

  constructor(
    // biome-ignore lint/suspicious/noExplicitAny: any Kysely database that has run migration 0003
    private readonly db: Kysely<any>,
    dialect: NonceDialect,
    private readonly registry: ChainRegistry,
    private readonly logger: Logger,
    options: NonceManagerOptions & { troubleLog?: TroubleLog } = {},
  ) {
    this.trouble = options.troubleLog ?? new TroubleLog();
    this.nonces = new NonceManager(db, dialect, options);
    this.outcomes = new SentOutcomes(db, registry, logger, options.now ? { now: options.now } : {});
  }

  start(intervalMs = 30_000): void {
    const tick = () => {
      this.running ??= this.runOnce().finally(() => {
        this.running = null;
      });
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Settles pending nonces, then records the outcome of mined sends; a failing node only skips its part. */
  async runOnce(): Promise<void> {
    try {
      await this.reconcileNonces();
    } catch (error) {
      // The database is down or restarting: the next pass tries again. Thrown, it would end the process.
      this.warn(error, {}, 'nonces not reconciled');
    }
    try {
      await this.outcomes.runOnce();
    } catch (error) {
      this.warn(error, {}, 'send outcomes not recorded');
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
        const adapter = this.registry.get<EvmAdapter>(key.chain, key.network);
        const report = await this.nonces.reconcile(key, adapter);
        if (report.rebroadcast + report.released > 0)
          this.logger.info({ ...key, ...report }, 'nonces reconciled');
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
