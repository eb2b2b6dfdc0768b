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
  'comment',
  'type',
  'confirmations',
  'notify_reverted',
  'notify_pending',
  'change_version',
] as const;

type ChangedRow = Awaited<ReturnType<ReturnType<SubscriptionSync['changes']>['execute']>>[number];

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
    // An empty matcher has nothing to remove: rows no longer live are left unread.
    const liveOnly = this.matcher.size === 0;
    let after = this.version;
    for (;;) {
      const rows = await this.changes(latest, liveOnly)
        .where('change_version', '>', after)
        .limit(this.pageSize)
        .execute();
      this.apply(rows);
      const last = rows.at(-1);
      if (last === undefined || rows.length < this.pageSize) break;
      after = Number(last.change_version);
      // Should one version stamp several rows, the page may end amid them: read them all (applying twice is harmless).
      this.apply(await this.changes(latest, liveOnly).where('change_version', '=', after).execute());
    }
    this.version = latest;
  }

  /** The rows of this (chain, network) changed up to `latest`, in version order; with `liveOnly`, the live ones. */
  private changes(latest: number, liveOnly: boolean) {
    let query = this.db
      .selectFrom('webhooks')
      .select(MATCHED_COLUMNS)
      .select((eb) =>
        eb
          .case()
          .when(eb.and([eb('deleted_at', 'is', null), eb('is_active', '=', 1), eb('is_invalid', '=', 0)]))
          .then(eb.lit(1))
          .else(eb.lit(0))
          .end()
          .as('live'),
      )
      .where('chain', '=', this.chain)
      .where('network', '=', this.network)
      .where('change_version', '<=', latest)
      .orderBy('change_version');
    if (liveOnly) {
      query = query.where('deleted_at', 'is', null).where('is_active', '=', 1).where('is_invalid', '=', 0);
    }
    return query;
  }

  private apply(rows: ChangedRow[]): void {
    for (const row of rows) {
      if (Number(row.live) !== 1) {
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
        comment: row.comment,
        type: row.type,
        confirmations: row.confirmations,
        notifyReverted: row.notify_reverted === 1,
        notifyPending: row.notify_pending === 1,
      });
    }
  }
}
