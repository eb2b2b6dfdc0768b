import type { Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';
import { WebhookMatcher } from './matcher.ts';
import { readWatchVersion } from './watch-versions.ts';

/**
 * Keeps a matcher in step with the webhooks of one (chain, network): only rows changed since the last look
 * are read. Versions are bumped under a row lock in the transaction that changes a webhook, so they become
 * visible in order and a version seen implies every lower one is committed too.
 */
export class SubscriptionSync {
  readonly matcher = new WebhookMatcher();
  private version = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly chain: ChainName,
    private readonly network: Network,
  ) {}

  async refresh(): Promise<void> {
    const latest = await readWatchVersion(this.db, this.chain, this.network);
    if (latest === this.version) return;
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('chain', '=', this.chain)
      .where('network', '=', this.network)
      .where('change_version', '>', this.version)
      .where('change_version', '<=', latest)
      .execute();
    for (const row of rows) {
      if (row.deleted_at !== null || row.is_active !== 1 || row.is_invalid === 1) {
        this.matcher.remove(row.id);
        continue;
      }
      this.matcher.upsert({
        id: row.id,
        userId: row.user_id,
        from: row.from_address,
        to: row.to_address,
        contract: row.contract_address,
        tokenId: row.token_id,
        type: row.type,
        confirmations: row.confirmations,
        notifyReverted: row.notify_reverted === 1,
        notifyPending: row.notify_pending === 1,
      });
    }
    this.version = latest;
  }
}
