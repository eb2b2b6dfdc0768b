import type { Kysely } from 'kysely';
import { hasAccess } from '../accounts/lifecycle.ts';
import type { QuotaService } from '../accounts/quotas.ts';
import { type Identity, identityOf, identityQuery } from '../accounts/users.ts';
import type { PlanConfig } from '../config.ts';
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import type { Database } from '../store/schema.ts';

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
  constructor(
    private readonly db: Kysely<Database>,
    private readonly quotas: QuotaService,
    private readonly graceMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The plan's name, quota period and per-period totals (null: unlimited): what `quotas_left` is out of. */
  async plan(userId: string): Promise<PlanConfig> {
    const row = await identityQuery(this.db)
      .where('subscriptions.user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return identityOf(row).plan;
  }

  /**
   * The overview of the caller as authentication read them (at most IDENTITY_CACHE_MS old, and read afresh
   * after any change this process or, on Postgres, another instance made): the subscription needs no query,
   * and a plan that limits nothing but requests needs none at all.
   */
  info({ userId, plan, terms, billing }: Identity): MaybePromise<AccountInfo> {
    return thenOrNow(this.quotas.remaining(userId, plan), ({ quotas, resetsAt }) => {
      const now = this.now();
      const ended = terms.endsAt !== null && Date.parse(terms.endsAt) <= now.getTime();
      return {
        plan: terms.plan.toUpperCase(),
        is_subscribed: String(hasAccess(terms, now.getTime(), this.graceMs)),
        is_yearly: billing.is_yearly,
        ends_at: terms.endsAt,
        quota_reset: resetsAt,
        status: ended && terms.status === 'active' ? 'expired' : terms.status,
        payment_method: billing.payment_method,
        crypto_payment: {
          currency: billing.crypto_currency,
          address: billing.crypto_address,
          eur_amount: billing.eur_amount,
          crypto_amount: billing.crypto_amount,
          qr_code: billing.qr_code,
        },
        quotas_left: quotas,
      };
    });
  }
}
