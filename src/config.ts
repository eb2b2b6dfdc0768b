import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CHAIN_NAMES, type ChainName, NETWORKS, type Network } from './chains/types.ts';
import type { KdfLimits } from './custody/kdf-scheduler.ts';
import type { PasswordThrottleSettings } from './custody/password-throttle.ts';

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

export interface NodeEndpointConfig {
  url: string;
  headers: Record<string, string>;
}

export interface Config {
  host: string;
  port: number;
  logLevel: string;
  /** `sqlite:<file>` or `postgres://...`. */
  databaseUrl: string;
  dataDir: string;
  /** Set when running as (or administering) the sandbox: enables the faucet. */
  sandbox: boolean;
  bodyLimitBytes: number;
  trustProxy: boolean;
  plans: PlanConfig[];
  defaultPlan: string;
  /** Where Prometheus metrics are served (their own listener); null: not served. */
  metrics: { host: string; port: number } | null;
  /** How long a plan past its end date keeps working before the API answers 402. */
  planGraceMs: number;
  nodeTimeoutMs: number;
  nodeRetries: number;
  /** Default most TRX (in sun) a TRC20/TRC721 transfer may burn for energy and bandwidth. */
  tronFeeLimitSun: bigint;
  /** Base64 32-byte key sealing webhook secrets; unset: `<dataDir>/master.key`, created on first start. */
  masterKey: string | undefined;
  /** CIDRs webhook URLs may reach although private (the sandbox opens loopback). */
  webhookAllowCidrs: string[];
  /** Price providers and their settings (the PRICE_* variables, validated by the prices module). */
  prices: {
    providers: string | undefined;
    coingeckoUrl?: string;
    coingeckoApiKey?: string;
    binanceUrl?: string;
    chainlinkFeeds?: string;
  };
  /** Wrong-password counting and lockouts (the PASSWORD_* variables). */
  passwordThrottle: PasswordThrottleSettings;
  /** Key derivations at once, and how many one user may have waiting (the KDF_* variables). */
  kdf: KdfLimits;
  /** Which background roles this process runs beside the API. */
  roles: { api: boolean; watcher: boolean; deliverer: boolean };
  /** Node endpoints per chain and network; empty means the chain's defaults (or the chain is off). */
  endpoints: Partial<Record<ChainName, Partial<Record<Network, NodeEndpointConfig[]>>>>;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration ${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Chaingateway's published plans (monthly); override with PLANS. */
const DEFAULT_PLANS: PlanConfig[] = [
  plan('plus', 375, 750, 50_000, 500),
  plan('pro', 1_500, 3_000, 200_000, 2_000),
  plan('premium', 7_500, 30_000, 2_000_000, 20_000),
  plan('enterprise', 25_000, 100_000, 200_000_000, 100_000),
];

function plan(name: string, webhooks: number, addresses: number, requests: number, transactions: number) {
  return { name, period: 'month' as const, quotas: { webhooks, addresses, requests, transactions } };
}

type Env = Record<string, string | undefined>;

/**
 * Reads the whole configuration from the environment (and the optional JSON file named by CONFIG_FILE,
 * whose keys are the same variable names). Throws ConfigError naming the first bad variable.
 */
export function loadConfig(env: Env = process.env): Config {
  const merged = { ...readConfigFile(env['CONFIG_FILE']), ...definedOnly(env) };
  const sandboxDir = merged['SANDBOX_DIR'];
  const dataDir = path.resolve(merged['DATA_DIR'] ?? sandboxDir ?? 'data');
  const plans = merged['PLANS'] === undefined ? DEFAULT_PLANS : parsePlans(merged['PLANS']);
  const defaultPlan = merged['DEFAULT_PLAN'] ?? plans[0]!.name;
  if (!plans.some((p) => p.name === defaultPlan)) {
    throw new ConfigError('DEFAULT_PLAN', `no plan named "${defaultPlan}" in PLANS`);
  }
  const url = databaseUrl(sandboxDir === undefined ? merged['DATABASE_URL'] : undefined, dataDir);
  if (url.startsWith('postgres') && merged['MASTER_KEY'] === undefined) {
    throw new ConfigError(
      'MASTER_KEY',
      'is required with a Postgres DATABASE_URL: every instance must share it',
    );
  }
  return {
    host: merged['HOST'] ?? '0.0.0.0',
    port: integer(merged, 'PORT', 8080, 0, 65_535),
    logLevel: oneOf(merged, 'LOG_LEVEL', 'info', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ]),
    // A sandbox always runs on its own embedded database, whatever DATABASE_URL says.
    databaseUrl: url,
    dataDir,
    sandbox: sandboxDir !== undefined,
    bodyLimitBytes: integer(merged, 'BODY_LIMIT_BYTES', 1_048_576, 1_024, 100 * 1_048_576),
    trustProxy: boolean(merged, 'TRUST_PROXY', false),
    plans,
    defaultPlan,
    planGraceMs: integer(merged, 'PLAN_GRACE_DAYS', 3, 0, 365) * 86_400_000,
    metrics:
      merged['METRICS_PORT'] === 'off'
        ? null
        : {
            host: merged['METRICS_HOST'] ?? '127.0.0.1',
            port: integer(merged, 'METRICS_PORT', 9464, 0, 65_535),
          },
    nodeTimeoutMs: integer(merged, 'NODE_TIMEOUT_MS', 10_000, 100, 600_000),
    nodeRetries: integer(merged, 'NODE_RETRIES', 3, 0, 20),
    tronFeeLimitSun: BigInt(integer(merged, 'TRON_FEE_LIMIT_TRX', 100, 1, 15_000)) * 1_000_000n,
    endpoints: parseEndpoints(merged),
    masterKey: merged['MASTER_KEY'],
    webhookAllowCidrs: list(merged['WEBHOOK_ALLOW_CIDRS']),
    roles: parseRoles(merged['ROLES']),
    passwordThrottle: parsePasswordThrottle(merged),
    kdf: {
      concurrency: integer(merged, 'KDF_CONCURRENCY', 2, 1, 64),
      maxQueuedPerOwner: integer(merged, 'KDF_MAX_QUEUED_PER_USER', 32, 1, 10_000),
    },
    prices: {
      providers: merged['PRICE_PROVIDERS'],
      ...optional('coingeckoUrl', merged['COINGECKO_URL']),
      ...optional('coingeckoApiKey', merged['COINGECKO_API_KEY']),
      ...optional('binanceUrl', merged['BINANCE_URL']),
      ...optional('chainlinkFeeds', merged['CHAINLINK_FEEDS']),
    },
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** `ROLES=api,watcher,deliverer` (default all three): split them across processes when scaling out. */
function parseRoles(raw: string | undefined): Config['roles'] {
  const roles = raw === undefined ? ['api', 'watcher', 'deliverer'] : list(raw);
  const unknown = roles.filter((r) => !['api', 'watcher', 'deliverer'].includes(r));
  if (unknown.length > 0)
    throw new ConfigError('ROLES', `unknown role ${unknown.join(', ')} (use api, watcher, deliverer)`);
  if (roles.length === 0) throw new ConfigError('ROLES', 'name at least one role');
  return {
    api: roles.includes('api'),
    watcher: roles.includes('watcher'),
    deliverer: roles.includes('deliverer'),
  };
}

/** Defaults: 5 per address, 20 per user, within 15 minutes; lockouts of 1 minute doubling up to 1 hour. */
function parsePasswordThrottle(env: Env): PasswordThrottleSettings {
  const lockoutSeconds = integer(env, 'PASSWORD_LOCKOUT_SECONDS', 60, 1, 86_400);
  const maxLockoutSeconds = integer(env, 'PASSWORD_LOCKOUT_MAX_SECONDS', 3_600, 1, 7 * 86_400);
  if (maxLockoutSeconds < lockoutSeconds) {
    throw new ConfigError('PASSWORD_LOCKOUT_MAX_SECONDS', 'must be at least PASSWORD_LOCKOUT_SECONDS');
  }
  return {
    maxFailuresPerAddress: integer(env, 'PASSWORD_MAX_FAILURES_PER_ADDRESS', 5, 1, 1_000),
    maxFailuresPerUser: integer(env, 'PASSWORD_MAX_FAILURES_PER_USER', 20, 1, 100_000),
    windowSeconds: integer(env, 'PASSWORD_FAILURE_WINDOW_SECONDS', 900, 1, 7 * 86_400),
    lockoutSeconds,
    maxLockoutSeconds,
  };
}

function definedOnly(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}

function readConfigFile(file: string | undefined): Record<string, string> {
  if (file === undefined || file === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError('CONFIG_FILE', `cannot read ${file} as JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('CONFIG_FILE', 'must hold a JSON object of variable names to values');
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `${value} is outside ${min}..${max}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `"${env[name]}" is not a boolean (true or false)`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `"${raw}" is not one of ${allowed.join(', ')}`);
  }
  return raw as T;
}

function databaseUrl(raw: string | undefined, dataDir: string): string {
  if (raw === undefined) return `sqlite:${path.join(dataDir, 'switchyard.db')}`;
  if (/^postgres(ql)?:\/\//.test(raw) || raw.startsWith('sqlite:')) return raw;
  throw new ConfigError('DATABASE_URL', 'must start with postgres://, postgresql:// or sqlite:');
}

function parsePlans(raw: string): PlanConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PLANS', 'is not valid JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new ConfigError('PLANS', 'must be a non-empty JSON array of plans');
  }
  const plans = parsed.map((item, index) => parsePlan(item, index));
  const names = new Set(plans.map((p) => p.name));
  if (names.size !== plans.length) throw new ConfigError('PLANS', 'plan names must be unique');
  return plans;
}

function parsePlan(item: unknown, index: number): PlanConfig {
  const where = `plan #${index + 1}`;
  if (typeof item !== 'object' || item === null) throw new ConfigError('PLANS', `${where} is not an object`);
  const { name, period = 'month', quotas } = item as Record<string, unknown>;
  if (typeof name !== 'string' || !/^[a-z0-9_-]{1,40}$/i.test(name)) {
    throw new ConfigError('PLANS', `${where} needs a name of letters, digits, - or _`);
  }
  if (period !== 'day' && period !== 'month' && period !== 'year') {
    throw new ConfigError('PLANS', `plan ${name}: period must be day, month or year`);
  }
  if (typeof quotas !== 'object' || quotas === null)
    throw new ConfigError('PLANS', `plan ${name}: quotas missing`);
  const q = quotas as Record<string, unknown>;
  const quota = (key: keyof PlanQuotas): number | null => {
    const value = q[key];
    if (value === null) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new ConfigError('PLANS', `plan ${name}: quotas.${key} must be a whole number >= 0 or null`);
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

/**
 * `<CHAIN>_<NETWORK>_URLS` is a comma-separated list of node URLs (e.g. TRON_TESTNET_URLS);
 * `<CHAIN>_API_KEY` adds the chain's API-key header where the chain has one (TronGrid).
 */
function parseEndpoints(env: Env): Config['endpoints'] {
  const out: Config['endpoints'] = {};
  for (const chain of CHAIN_NAMES) {
    for (const network of NETWORKS) {
      const name = `${chain.toUpperCase()}_${network.toUpperCase()}_URLS`;
      const raw = env[name];
      if (raw === undefined) continue;
      const headers: Record<string, string> = {};
      const apiKey = env[`${chain.toUpperCase()}_API_KEY`];
      if (apiKey !== undefined && chain === 'tron') headers['TRON-PRO-API-KEY'] = apiKey;
      const urls = raw
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const url of urls) {
        if (!isHttpUrl(url)) throw new ConfigError(name, `"${redactUrl(url)}" is not an http(s) URL`);
      }
      out[chain] = { ...out[chain], [network]: urls.map((url) => ({ url, headers })) };
    }
  }
  return out;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Node URLs may embed API keys in their path or query; keep only scheme and host in messages. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/…`;
  } catch {
    return '(unparseable URL)';
  }
}
