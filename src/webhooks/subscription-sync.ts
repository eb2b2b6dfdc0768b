import type { Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';
import { WebhookMatcher } from './matcher.ts';
import { readWatchVersion } from './watch-versions.ts';

/** Rows read at a time: a million subscriptions load in bounded memory, a page's objects freed before the next. */
export const SUBSCRIPTION_PAGE = 50_000;

/** Only what matching needs: URLs and sealed secrets are read at delivery time. */
const MATCHED_COLUMNS = [
  'id',
  'user_id',
  'from_address',
  'to_address',
  'contract_address',
  'token_id',
  'type',
  'confirmations',
  'notify_reverted',
  'notify_pending',
  'is_active',
  'is_invalid',
  'deleted_at',
  'change_version',
] as const;

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
    private readonly pageSize = SUBSCRIPTION_PAGE,
  ) {}

  async refresh(): Promise<void> {
    const latest = await readWatchVersion(this.db, this.chain, this.network);
    if (latest === this.version) return;
    // Keyset pages over (change_version, id): the id breaks ties should one version stamp several rows.
    let after: { version: number; id: string } | null = null;
    for (;;) {
      let page = this.db
        .selectFrom('webhooks')
        .select(MATCHED_COLUMNS)
        .where('chain', '=', this.chain)
        .where('network', '=', this.network)
        .where('change_version', '>', this.version)
        .where('change_version', '<=', latest);
      if (after !== null) {
        const { version, id } = after;
        page = page
          .where('change_version', '>=', version)
          .where((eb) => eb.or([eb('change_version', '>', version), eb('id', '>', id)]));
      }
      const rows = await page
        .orderBy('change_version')
        .orderBy('id')
        .limit(this.pageSize)
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
      const last = rows.at(-1);
      if (last === undefined || rows.length < this.pageSize) break;
      after = { version: Number(last.change_version), id: last.id };
    }
    this.version = latest;
  }
}
