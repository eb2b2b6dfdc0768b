import type { Kysely } from 'kysely';
import type { PlanConfig, PlanQuotas, QuotaPeriod } from '../config.ts';
import type { Database, PlansTable } from '../store/schema.ts';

/** Writes the configured plans into the database so subscriptions can reference them. */
export async function syncPlans(db: Kysely<Database>, plans: PlanConfig[], now = new Date()): Promise<void> {
  for (const plan of plans) {
    const row = {
      period: plan.period,
      quota_webhooks: plan.quotas.webhooks,
      quota_addresses: plan.quotas.addresses,
      quota_requests: plan.quotas.requests,
      quota_transactions: plan.quotas.transactions,
      rate_requests: plan.rate?.requests ?? null,
      rate_seconds: plan.rate?.seconds ?? null,
      sponsored_json: plan.sponsored === null ? null : JSON.stringify(plan.sponsored),
      updated_at: now.toISOString(),
    };
    await db
      .insertInto('plans')
      .values({ name: plan.name, ...row })
      .onConflict((oc) => oc.column('name').doUpdateSet(row))
      .execute();
  }
}

export function planFromRow(row: PlansTable): PlanConfig {
  return {
    name: row.name,
    period: row.period as QuotaPeriod,
    quotas: {
      webhooks: row.quota_webhooks,
      addresses: row.quota_addresses,
      requests: row.quota_requests,
      transactions: row.quota_transactions,
    },
    rate:
      row.rate_requests === null || row.rate_seconds === null
        ? null
        : { requests: row.rate_requests, seconds: row.rate_seconds },
    sponsored:
      row.sponsored_json === null ? null : (JSON.parse(row.sponsored_json) as Record<string, string>),
  };
}

export type QuotaKind = keyof PlanQuotas;
