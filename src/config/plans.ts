import { ConfigError } from './error.ts';

/** Quotas of a plan, per period. `null` means unlimited. */
export interface PlanQuotas {
  webhooks: number | null;
  addresses: number | null;
  requests: number | null;
  transactions: number | null;
}

export type QuotaPeriod = 'day' | 'month' | 'year';

export interface PlanConfig {
  name: string;
  period: QuotaPeriod;
  quotas: PlanQuotas;
}

/** Chaingateway's published plans (monthly); override with PLANS. */
export const DEFAULT_PLANS: PlanConfig[] = [
  plan('plus', 375, 750, 50_000, 500),
  plan('pro', 1_500, 3_000, 200_000, 2_000),
  plan('premium', 7_500, 30_000, 2_000_000, 20_000),
  plan('enterprise', 25_000, 100_000, 200_000_000, 100_000),
];

function plan(name: string, webhooks: number, addresses: number, requests: number, transactions: number) {
  return { name, period: 'month' as const, quotas: { webhooks, addresses, requests, transactions } };
}

/** PLANS: a JSON array of `{name, period, quotas}`. */
export function parsePlans(raw: string, variable: string): PlanConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(variable, 'is not valid JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new ConfigError(variable, 'must be a non-empty JSON array of plans');
  }
  const plans = parsed.map((item, index) => parsePlan(item, index, variable));
  const names = new Set(plans.map((p) => p.name));
  if (names.size !== plans.length) throw new ConfigError(variable, 'plan names must be unique');
  return plans;
}

function parsePlan(item: unknown, index: number, variable: string): PlanConfig {
  const where = `plan #${index + 1}`;
  if (typeof item !== 'object' || item === null) throw new ConfigError(variable, `${where} is not an object`);
  const { name, period = 'month', quotas } = item as Record<string, unknown>;
  if (typeof name !== 'string' || !/^[a-z0-9_-]{1,40}$/i.test(name)) {
    throw new ConfigError(variable, `${where} needs a name of letters, digits, - or _`);
  }
  if (period !== 'day' && period !== 'month' && period !== 'year') {
    throw new ConfigError(variable, `plan ${name}: period must be day, month or year`);
  }
  if (typeof quotas !== 'object' || quotas === null)
    throw new ConfigError(variable, `plan ${name}: quotas missing`);
  const q = quotas as Record<string, unknown>;
  const quota = (key: keyof PlanQuotas): number | null => {
    const value = q[key];
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new ConfigError(variable, `plan ${name}: quotas.${key} must be a whole number >= 0 or null`);
    }
    return value;
  };
  return {
    name,
    period,
    quotas: {
      webhooks: quota('webhooks'),
      addresses: quota('addresses'),
      requests: quota('requests'),
      transactions: quota('transactions'),
    },
  };
}
