import path from 'node:path';
import { settingsText } from './config/config-file.ts';
import type { EndpointsConfig, WsEndpointsConfig } from './config/endpoints.ts';
import { ConfigError, type ConfigProblem } from './config/error.ts';
import { DEFAULT_PLANS, type PlanConfig, type PlanRate } from './config/plans.ts';
import type { RequiredChains } from './config/required-chains.ts';
import type { Env } from './config/setting.ts';
import {
  MASTER_KEY_HINT,
  readSettings,
  type SettingsTable,
  type SettingValues,
  settingProblems,
} from './config/settings.ts';
import type { KdfCostName } from './custody/kdf-cost.ts';
import type { KdfLimits } from './custody/kdf-scheduler.ts';
import type { PasswordThrottleSettings } from './custody/password-throttle.ts';
import type { LogFormat } from './logger.ts';

export type { EndpointsConfig, NodeEndpointConfig, WsEndpointsConfig } from './config/endpoints.ts';
export { ConfigError, type ConfigProblem } from './config/error.ts';
export type { PlanConfig, PlanQuotas, PlanRate, QuotaPeriod } from './config/plans.ts';
export type { RequiredChains } from './config/required-chains.ts';
export { redactUrl } from './config/setting.ts';

export interface Config {
  host: string;
  port: number;
  logLevel: string;
  /** `pretty` for a person at a terminal, `json` for a log collector; default: pretty when stdout is a TTY. */
  logFormat: LogFormat;
  /** `sqlite:<file>` or `postgres://...`. */
  databaseUrl: string;
  dataDir: string;
  /** Set when running as (or administering) the sandbox: enables the faucet. */
  sandbox: boolean;
  bodyLimitBytes: number;
  /** Headers and body of a request must arrive within this. */
  requestTimeoutMs: number;
  /** Open connections one client address may hold. */
  maxConnectionsPerClient: number;
  /** Which proxies' X-Forwarded-* to believe: none, any, or these addresses and CIDRs (TRUST_PROXY). */
  trustProxy: boolean | string[];
  plans: PlanConfig[];
  defaultPlan: string;
  /** Where Prometheus metrics are served (their own listener); null: not served. */
  metrics: { host: string; port: number } | null;
  /** Webhook requests in flight to one origin from this process's deliverer. */
  webhookOriginConcurrency: number;
  /** How long a plan past its end date keeps working before the API answers 402. */
  planGraceMs: number;
  /** Where rate limits are shared across instances (REDIS_URL; unset: in this process), and its key prefix. */
  redis: { url: string | undefined; prefix: string };
  nodeTimeoutMs: number;
  nodeRetries: number;
  /** How often every node endpoint is asked for its head (readiness, node metrics). */
  nodeProbeIntervalMs: number;
  /** Chains and networks /readyz requires a reachable node for (REQUIRED_CHAINS). */
  requiredChains: RequiredChains;
  /**
   * Every setting's text (file and environment), from which each chain family reads its own (e.g.
   * TRON_FEE_LIMIT_TRX); checked by loadConfig when it is given the families' table, and at the latest
   * when the context is built.
   */
  familySettings: Env;
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
  /** Key derivations at once, how many one user may have waiting, and the share of sign-ins (the KDF_* variables). */
  kdf: KdfLimits;
  /** How hard new wallet-key seals and dashboard-password hashes are (KDF_COST; `test` only in tests). */
  kdfCost: KdfCostName;
  /**
   * The dashboard: whether anyone may sign up, how long a sign-in lasts, and how many sign-ins and
   * sign-ups one client address may make.
   */
  dashboard: { signupOpen: boolean; sessionMs: number; signInRate: PlanRate; signUpRate: PlanRate };
  /** How long an Idempotency-Key is remembered (IDEMPOTENCY_KEY_HOURS). */
  idempotencyKeyMs: number;
  /** Which background roles this process runs beside the API. */
  roles: { api: boolean; watcher: boolean; deliverer: boolean };
  /** How long a watcher holds a sponsored job between renewals; a dead one's job resumes after it. */
  sponsorJobLeaseMs: number;
  /** Node endpoints per chain and network; empty means the chain's defaults (or the chain is off). */
  endpoints: EndpointsConfig;
  /** WebSocket endpoints whose new-block announcements wake the watchers; unset: the watcher only polls. */
  wsEndpoints: WsEndpointsConfig;
}

/**
 * Reads the whole configuration from the environment (and the optional JSON file named by CONFIG_FILE,
 * whose keys are the same variable names), as `SETTINGS` describes it, and the chain families' own
 * settings when given their table (`familySettings()` of chains/families.ts; left out where loading every
 * family would only slow a command down). Throws one ConfigError naming every missing or invalid setting.
 */
export function loadConfig(env: Env = process.env, familySettings: SettingsTable = []): Config {
  const problems: ConfigProblem[] = [];
  const text = settingsText(env, problems);
  const { values, problems: unreadable } = readSettings(text);
  problems.push(...unreadable, ...settingProblems(familySettings, text), ...crossProblems(values));
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...configOf(values as SettingValues), familySettings: text };
}

/** The settings that are valid alone but not together; each is checked only when its parts were read. */
function crossProblems(v: Partial<SettingValues>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const plans = v.PLANS ?? DEFAULT_PLANS;
  if (v.DEFAULT_PLAN !== undefined && !plans.some((p) => p.name === v.DEFAULT_PLAN)) {
    problems.push({ variable: 'DEFAULT_PLAN', problem: `no plan named "${v.DEFAULT_PLAN}" in PLANS` });
  }
  const postgres = v.SANDBOX_DIR === undefined && v.DATABASE_URL?.startsWith('postgres') === true;
  if (postgres && v.MASTER_KEY === undefined) {
    problems.push({
      variable: 'MASTER_KEY',
      problem: `is required with a Postgres DATABASE_URL, the same on every instance; ${MASTER_KEY_HINT}`,
    });
  }
  const { KDF_CONCURRENCY: slots, KDF_ANONYMOUS_CONCURRENCY: anonymousSlots } = v;
  if (slots !== undefined && anonymousSlots !== undefined && anonymousSlots > slots) {
    problems.push({ variable: 'KDF_ANONYMOUS_CONCURRENCY', problem: 'must be at most KDF_CONCURRENCY' });
  }
  const { PASSWORD_LOCKOUT_SECONDS: first, PASSWORD_LOCKOUT_MAX_SECONDS: max } = v;
  if (first !== undefined && max !== undefined && max < first) {
    problems.push({
      variable: 'PASSWORD_LOCKOUT_MAX_SECONDS',
      problem: 'must be at least PASSWORD_LOCKOUT_SECONDS',
    });
  }
  return problems;
}

function configOf(v: SettingValues): Omit<Config, 'familySettings'> {
  const dataDir = path.resolve(v.DATA_DIR ?? v.SANDBOX_DIR ?? 'data');
  const plans = v.PLANS ?? DEFAULT_PLANS;
  return {
    host: v.HOST,
    port: v.PORT,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    // A sandbox always runs on its own embedded database, whatever DATABASE_URL says.
    databaseUrl:
      (v.SANDBOX_DIR === undefined ? v.DATABASE_URL : undefined) ??
      `sqlite:${path.join(dataDir, 'switchyard.db')}`,
    dataDir,
    sandbox: v.SANDBOX_DIR !== undefined,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    requestTimeoutMs: v.REQUEST_TIMEOUT_SECONDS * 1_000,
    maxConnectionsPerClient: v.MAX_CONNECTIONS_PER_CLIENT,
    trustProxy: v.TRUST_PROXY,
    plans,
    defaultPlan: v.DEFAULT_PLAN ?? plans[0]!.name,
    planGraceMs: v.PLAN_GRACE_DAYS * 86_400_000,
    redis: { url: v.REDIS_URL, prefix: v.REDIS_PREFIX },
    metrics: v.METRICS_PORT === null ? null : { host: v.METRICS_HOST, port: v.METRICS_PORT },
    nodeTimeoutMs: v.NODE_TIMEOUT_MS,
    nodeRetries: v.NODE_RETRIES,
    nodeProbeIntervalMs: v.NODE_PROBE_INTERVAL_SECONDS * 1_000,
    requiredChains: v.REQUIRED_CHAINS,
    endpoints: v['<CHAIN>_<NETWORK>_URLS'],
    wsEndpoints: v['<CHAIN>_<NETWORK>_WS_URL'],
    masterKey: v.MASTER_KEY,
    webhookAllowCidrs: [...(v.WEBHOOK_ALLOW_CIDRS ?? [])],
    webhookOriginConcurrency: v.WEBHOOK_ORIGIN_CONCURRENCY,
    roles: v.ROLES,
    sponsorJobLeaseMs: v.SPONSOR_JOB_LEASE_SECONDS * 1_000,
    passwordThrottle: {
      maxFailuresPerAddress: v.PASSWORD_MAX_FAILURES_PER_ADDRESS,
      maxFailuresPerUser: v.PASSWORD_MAX_FAILURES_PER_USER,
      windowSeconds: v.PASSWORD_FAILURE_WINDOW_SECONDS,
      lockoutSeconds: v.PASSWORD_LOCKOUT_SECONDS,
      maxLockoutSeconds: v.PASSWORD_LOCKOUT_MAX_SECONDS,
    },
    kdf: {
      concurrency: v.KDF_CONCURRENCY,
      maxQueuedPerOwner: v.KDF_MAX_QUEUED_PER_USER,
      anonymousConcurrency: v.KDF_ANONYMOUS_CONCURRENCY,
      maxQueuedAnonymous: v.KDF_MAX_QUEUED_ANONYMOUS,
    },
    kdfCost: v.KDF_COST,
    dashboard: {
      signupOpen: v.DASHBOARD_SIGNUP === 'open',
      sessionMs: v.SESSION_HOURS * 3_600_000,
      signInRate: v.SIGN_IN_RATE_PER_CLIENT,
      signUpRate: v.SIGN_UP_RATE_PER_CLIENT,
    },
    idempotencyKeyMs: v.IDEMPOTENCY_KEY_HOURS * 3_600_000,
    prices: {
      providers: v.PRICE_PROVIDERS,
      ...optional('coingeckoUrl', v.COINGECKO_URL),
      ...optional('coingeckoApiKey', v.COINGECKO_API_KEY),
      ...optional('binanceUrl', v.BINANCE_URL),
      ...optional('chainlinkFeeds', v.CHAINLINK_FEEDS),
    },
  };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
