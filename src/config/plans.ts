import { ConfigError } from './error.ts';

/** Quotas of a plan, per period. `null` means unlimited. */
export interface PlanQuotas {
  webhooks: number | null;
  addresses: number | null;
  requests: number | null;
  transactions: number | null;
}

export type QuotaPeriod = 'day' | 'month' | 'year';

/**
 * How fast one API token may call: a burst of `requests` at once, given back evenly over `seconds` (one
 * every `seconds/requests`). `null` on a plan means no rate limit.
 */
export interface PlanRate {
  requests: number;
  seconds: number;
}

/**
 * The fees the gateway's sponsors may pay for a plan's user per period, by chain, in the chain's coin
 * (decimal text, `"tron": "50"`); a chain not named, or `null` for the plan: none.
 */
export type SponsoredAllowance = Readonly<Record<string, string>> | null;

export interface PlanConfig {
  name: string;
  period: QuotaPeriod;
  quotas: PlanQuotas;
  rate: PlanRate | null;
  sponsored: SponsoredAllowance;
}

/** The longest rate window a plan may set: a day (longer windows are what the quotas are for). */
export const MAX_RATE_SECONDS = 86_400;
/** The most requests a rate may allow per window. */
export const MAX_RATE_REQUESTS = 1_000_000;

/**
 * Chaingateway's published plans (monthly); override with PLANS. Their rates per token are the gateway's
 * own (Chaingateway publishes none): bursts a client's batch jobs need, well under what one instance serves.
 */
export const DEFAULT_PLANS: PlanConfig[] = [
  plan('plus', [375, 750, 50_000, 500], 50),
  plan('pro', [1_500, 3_000, 200_000, 2_000], 100),
  plan('premium', [7_500, 30_000, 2_000_000, 20_000], 250),
  plan('enterprise', [25_000, 100_000, 200_000_000, 100_000], 500),
];

function plan(
  name: string,
  [webhooks, addresses, requests, transactions]: [number, number, number, number],
  perSecond: number,
): PlanConfig {
  return {
    name,
    period: 'month',
    quotas: { webhooks, addresses, requests, transactions },
    rate: { requests: perSecond, seconds: 1 },
    sponsored: null,
  };
}

/** PLANS: a JSON array of `{name, period, quotas, rate}`. */
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
  const { name, period = 'month', quotas, rate = null, sponsored = null } = item as Record<string, unknown>;
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
    rate: parseRate(rate, name, variable),
    sponsored: parseSponsored(sponsored, name, variable),
  };
}

/** `{"tron": "50", "ethereum": "0.05"}`: decimal text per chain (never a JSON number: no float for money). */
function parseSponsored(sponsored: unknown, plan: string, variable: string): SponsoredAllowance {
  if (sponsored === null) return null;
  const shape = `plan ${plan}: sponsored must be null or {"<chain>": "<amount in its coin, decimal text>"}`;
  if (typeof sponsored !== 'object' || Array.isArray(sponsored)) throw new ConfigError(variable, shape);
  const entries = Object.entries(sponsored);
  for (const [chain, amount] of entries) {
    if (
      !/^[a-z0-9-]{1,40}$/.test(chain) ||
      typeof amount !== 'string' ||
      !/^\d{1,30}(\.\d{1,30})?$/.test(amount)
    )
      throw new ConfigError(variable, shape);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** `{"requests": 50, "seconds": 1}`; absent or `null`: no rate limit. */
function parseRate(rate: unknown, plan: string, variable: string): PlanRate | null {
  if (rate === null) return null;
  const shape = `plan ${plan}: rate must be null or {"requests": 1..${MAX_RATE_REQUESTS}, "seconds": 1..${MAX_RATE_SECONDS}}`;
  if (typeof rate !== 'object' || Array.isArray(rate)) throw new ConfigError(variable, shape);
  const { requests, seconds } = rate as Record<string, unknown>;
  const whole = (value: unknown, max: number): value is number =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= max;
  if (!whole(requests, MAX_RATE_REQUESTS) || !whole(seconds, MAX_RATE_SECONDS)) {
    throw new ConfigError(variable, shape);
  }
  return { requests, seconds };
}
