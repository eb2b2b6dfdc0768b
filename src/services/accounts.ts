import type { Kysely, Selectable } from 'kysely';
import { standingOf } from '../accounts/lifecycle.ts';
import type { QuotaService } from '../accounts/quotas.ts';
import { identityOf, identityQuery } from '../accounts/users.ts';
import type { PlanConfig } from '../config.ts';
import { PreparedQuery } from '../store/prepared-query.ts';
import type { Database, SubscriptionsTable } from '../store/schema.ts';

/** `GET /api/account` data, field for field as Chaingateway answers it. */
export interface AccountInfo {
  plan: string;
  /** "true" or "false": Chaingateway sends this flag as a string. */
  is_subscribed: string;
  is_yearly: number;
  ends_at: string | null;
  quota_reset: string | null;
  status: string;
  payment_method: string | null;
  crypto_payment: {
    currency: string | null;
    address: string | null;
    eur_amount: string | null;
    crypto_amount: string | null;
    qr_code: string | null;
  };
  quotas_left: {
    webhooks: number | null;
    addresses: number | null;
    requests: number | null;
    transactions: number | null;
  };
}

export class AccountService {
  /** Every `GET /api/account` reads it: compiled once. */
  readonly #subscription: PreparedQuery<Selectable<SubscriptionsTable>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly quotas: QuotaService,
    private readonly graceMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#subscription = new PreparedQuery(
      db.selectFrom('subscriptions').selectAll().where('user_id', '=', ''),
    );
  }

  /** The plan's name, quota period and per-period totals (null: unlimited): what `quotas_left` is out of. */
  async plan(userId: string): Promise<PlanConfig> {
    const row = await identityQuery(this.db)
      .where('subscriptions.user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return identityOf(row).plan;
  }

  /** `knownPlan`: the plan the request was authenticated with, saving its query. */
  async info(userId: string, knownPlan?: PlanConfig): Promise<AccountInfo> {
    const sub = await this.#subscription.first(this.db, [userId]);
    if (sub === undefined) throw new Error(`user ${userId} has no subscription`);
    const { quotas, resetsAt } = await this.quotas.remaining(userId, knownPlan);
    const now = this.now();
    const ended = sub.ends_at !== null && sub.ends_at <= now.toISOString();
    const terms = { plan: sub.plan, status: sub.status, endsAt: sub.ends_at, updatedAt: sub.updated_at };
    return {
      plan: sub.plan.toUpperCase(),
      is_subscribed: String(standingOf(terms, now, this.graceMs).active),
      is_yearly: sub.is_yearly,
      ends_at: sub.ends_at,
      quota_reset: resetsAt.toISOString(),
      status: ended && sub.status === 'active' ? 'expired' : sub.status,
      payment_method: sub.payment_method,
      crypto_payment: {
        currency: sub.crypto_currency,
        address: sub.crypto_address,
        eur_amount: sub.eur_amount,
        crypto_amount: sub.crypto_amount,
        qr_code: sub.qr_code,
      },
      quotas_left: quotas,
    };
  }
}
