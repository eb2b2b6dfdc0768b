import { parseChainlinkFeeds, parsePriceProviders } from '../prices/config.ts';
import { parseIpAllowlist } from '../webhooks/ip-allowlist.ts';
import { readEndpoints, readWsEndpoints } from './endpoints.ts';
import { ConfigError, type ConfigProblem, collectProblems } from './error.ts';
import { kdfCostSetting } from './kdf-cost-setting.ts';
import { parsePlans } from './plans.ts';
import { rateSetting } from './rate-setting.ts';
import { requiredChains } from './required-chains.ts';
import {
  type Env,
  httpUrl,
  list,
  oneOf,
  type Setting,
  seconds,
  setting,
  text,
  wholeNumber,
} from './setting.ts';
import { trustProxySetting } from './trust-proxy.ts';

export const MASTER_KEY_HINT = 'generate one with `npm run -s cli -- master-key generate`';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export const ROLE_NAMES = ['api', 'watcher', 'deliverer'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/**
 * Every setting the gateway reads, in the order the README's Configuration table and `.env.example` list
 * them (a test holds all three together). Adding a setting is one entry here, then its use in Config.
 * A name in angle brackets stands for a family of variables.
 */
export const SETTINGS = {
  CONFIG_FILE: setting({
    meaning: 'a JSON file of these same names to values; the environment overrides it',
    parse: text,
  }),
  HOST: setting({
    default: '0.0.0.0',
    meaning: 'address the API listens on (the sandbox: 127.0.0.1)',
    parse: text,
  }),
  PORT: setting({ default: '8080', meaning: 'port the API listens on', parse: wholeNumber(0, 65_535) }),
  LOG_LEVEL: setting({
    default: 'info',
    meaning: `least severe log level written: ${LOG_LEVELS.join(', ')}`,
    parse: oneOf(LOG_LEVELS),
  }),
  LOG_FORMAT: setting({
    computed: 'pretty on a terminal, json otherwise',
    meaning: '`json` for a log collector, `pretty` for a person at a terminal',
    parse: oneOf(LOG_FORMATS),
  }),
  DATABASE_URL: setting({
    computed: 'sqlite:$DATA_DIR/switchyard.db',
    meaning:
      '`postgres://user:password@host/db` or `sqlite:/path/file.db` (a sandbox always uses its own SQLite file)',
    secret: true,
    parse: databaseUrl,
  }),
  DATA_DIR: setting({
    computed: './data (the sandbox: SANDBOX_DIR)',
    meaning: 'where the embedded database and the generated master key live',
    parse: text,
  }),
  SANDBOX_DIR: setting({
    meaning: 'sandbox state (`npm run sandbox` uses `.sandbox`); when set, the CLI works on that sandbox',
    parse: text,
  }),
  SANDBOX_EVM_BLOCK_TIME: setting({
    default: '2',
    meaning: 'sandbox only: seconds between EVM devnet blocks besides one per transaction (0: only those)',
    parse: seconds(3600),
  }),
  SANDBOX_SNAPSHOT_INTERVAL: setting({
    default: '5',
    meaning: "sandbox only: seconds between saves of the devnets' chains (0: only when stopping)",
    parse: seconds(3600),
  }),
  BODY_LIMIT_BYTES: setting({
    default: '1048576',
    meaning:
      'the largest request body any route accepts (a signed transaction to broadcast); each route accepts at most its own limit (see Security and limits), larger bodies answer 413',
    parse: wholeNumber(1_024, 100 * 1_048_576),
  }),
  REQUEST_TIMEOUT_SECONDS: setting({
    default: '10',
    meaning:
      "a request's headers and body must arrive within this, else 408 and the connection is closed (checked every second)",
    parse: wholeNumber(1, 3_600),
  }),
  MAX_CONNECTIONS_PER_CLIENT: setting({
    default: '64',
    meaning:
      'open connections one client address may hold; more are closed at once (behind a reverse proxy the proxy is the client: raise it there)',
    parse: wholeNumber(1, 1_000_000),
  }),
  TRUST_PROXY: setting({
    default: 'false',
    meaning:
      'trust `X-Forwarded-*` from a reverse proxy: `true` (any), or its addresses and CIDRs, e.g. `10.0.0.0/8`, so that a client cannot forge the address it is counted by',
    parse: trustProxySetting,
  }),
  PLANS: setting({
    computed: "Chaingateway's plans",
    meaning:
      'JSON array of `{"name","period","quotas":{"webhooks","addresses","requests","transactions"},"rate":{"requests","seconds"}}`; `null` is unlimited; period `day`, `month` or `year`; no `rate`: no rate limit',
    parse: parsePlans,
  }),
  DEFAULT_PLAN: setting({ computed: 'the first plan', meaning: 'plan given to new users', parse: text }),
  PLAN_GRACE_DAYS: setting({
    default: '3',
    meaning: 'days a plan past its end keeps working before the API answers 402',
    parse: wholeNumber(0, 365),
  }),
  REDIS_URL: setting({
    meaning:
      '`redis://[user:password@]host:6379[/db]` (or `rediss://`): rate limits shared by every instance; unset: each instance counts its own',
    secret: true,
    parse: redisUrl,
  }),
  REDIS_PREFIX: setting({
    default: 'switchyard:',
    meaning: 'put before every Redis key, so gateways sharing one Redis keep apart',
    parse: text,
  }),
  METRICS_HOST: setting({
    default: '127.0.0.1',
    meaning: 'address the Prometheus metrics listener (`/metrics`) binds',
    parse: text,
  }),
  METRICS_PORT: setting({
    default: '9464',
    meaning: 'port of the metrics listener; `off` serves none (the sandbox: any free port)',
    parse: (raw, name) => (raw === 'off' ? null : wholeNumber(0, 65_535)(raw, name)),
  }),
  NODE_TIMEOUT_MS: setting({
    default: '10000',
    meaning: 'per-attempt timeout of a node call',
    parse: wholeNumber(100, 600_000),
  }),
  NODE_RETRIES: setting({
    default: '3',
    meaning: 'retries of a node call (jittered backoff, failover to the next endpoint)',
    parse: wholeNumber(0, 20),
  }),
  NODE_PROBE_INTERVAL_SECONDS: setting({
    default: '15',
    meaning: 'how often each node endpoint is asked for its head (readiness, node metrics)',
    parse: wholeNumber(1, 3_600),
  }),
  REQUIRED_CHAINS: setting({
    default: 'configured',
    meaning:
      '`/readyz` answers 503 while one of these has no reachable node: `configured` (chains given their own URLs), `all`, `none`, or a list of `chain` and `chain:network`',
    parse: requiredChains,
  }),
  '<CHAIN>_<NETWORK>_URLS': {
    computed: "the chain's public nodes",
    meaning:
      'comma-separated node endpoints tried in order with failover, e.g. `TRON_TESTNET_URLS`, `ETHEREUM_MAINNET_URLS`',
    secret: true,
    read: readEndpoints,
  } satisfies Setting<ReturnType<typeof readEndpoints>>,
  '<CHAIN>_<NETWORK>_WS_URL': {
    meaning:
      "a node's WebSocket endpoint (`ws://`, `wss://`), e.g. `ETHEREUM_MAINNET_WS_URL`: the webhook watcher hears of each new block by subscription instead of at its next poll (EVM chains `newHeads`, Solana `slotSubscribe`; Tron and Bitcoin only poll); polling goes on beside it",
    secret: true,
    read: readWsEndpoints,
  } satisfies Setting<ReturnType<typeof readWsEndpoints>>,
  MASTER_KEY: setting({
    computed: '$DATA_DIR/master.key (created)',
    meaning: `base64 32-byte key sealing webhook secrets; required with Postgres, the same on every instance (${MASTER_KEY_HINT})`,
    secret: true,
    parse: masterKey,
  }),
  WEBHOOK_ALLOW_CIDRS: setting({
    meaning: 'private ranges webhook URLs may reach anyway, e.g. `10.1.0.0/16` (the sandbox: loopback)',
    parse: (raw, name) => {
      try {
        return parseIpAllowlist(raw);
      } catch (error) {
        throw new ConfigError(name, (error as Error).message);
      }
    },
  }),
  WEBHOOK_ORIGIN_CONCURRENCY: setting({
    default: '16',
    meaning:
      'webhook requests in flight to one origin (scheme, host, port) from each deliverer; over kept-alive connections a fast receiver gets about this many per round trip',
    parse: wholeNumber(1, 64),
  }),
  ROLES: setting({
    default: 'api,watcher,deliverer',
    meaning: 'what this process runs: the HTTP API, the chain watchers, the webhook deliverer',
    parse: roles,
  }),
  SPONSOR_JOB_LEASE_SECONDS: setting({
    default: '60',
    meaning:
      'how long a watcher holds a sponsored job (paymaster, sweep, activation) between renewals; when its process dies, another resumes the job from its notes after this',
    parse: wholeNumber(3, 3_600),
  }),
  PASSWORD_MAX_FAILURES_PER_ADDRESS: setting({
    default: '5',
    meaning: 'wrong wallet passwords within the window that lock one address (then 429 with `Retry-After`)',
    parse: wholeNumber(1, 1_000),
  }),
  PASSWORD_MAX_FAILURES_PER_USER: setting({
    default: '20',
    meaning: "wrong wallet passwords within the window that lock all of a user's addresses",
    parse: wholeNumber(1, 100_000),
  }),
  PASSWORD_FAILURE_WINDOW_SECONDS: setting({
    default: '900',
    meaning: 'how long a wrong password counts toward those limits',
    parse: wholeNumber(1, 7 * 86_400),
  }),
  PASSWORD_LOCKOUT_SECONDS: setting({
    default: '60',
    meaning: 'the first lockout; each further one in a row lasts twice as long',
    parse: wholeNumber(1, 86_400),
  }),
  PASSWORD_LOCKOUT_MAX_SECONDS: setting({
    default: '3600',
    meaning: 'the longest lockout (the doubling is forgotten a day after the last lockout)',
    parse: wholeNumber(1, 7 * 86_400),
  }),
  KDF_CONCURRENCY: setting({
    default: '2',
    meaning: "key derivations (scrypt, PBKDF2) at once, kept below libuv's 4 threads, users served in turn",
    parse: wholeNumber(1, 64),
  }),
  KDF_MAX_QUEUED_PER_USER: setting({
    default: '32',
    meaning: 'key operations one user may have waiting before 429 `Too many key operations in progress`',
    parse: wholeNumber(1, 10_000),
  }),
  KDF_ANONYMOUS_CONCURRENCY: setting({
    default: '1',
    meaning:
      'how many of those run for sign-ins and sign-ups (nobody known yet), all of them together; at most KDF_CONCURRENCY, below it so a slot stays for the keys',
    parse: wholeNumber(1, 64),
  }),
  KDF_MAX_QUEUED_ANONYMOUS: setting({
    default: '8',
    meaning: 'sign-ins and sign-ups waiting for a derivation, all together, before 429 at once',
    parse: wholeNumber(1, 10_000),
  }),
  KDF_COST: kdfCostSetting,
  DASHBOARD_SIGNUP: setting({
    default: 'closed',
    meaning:
      '`open`: anyone may create an account at /dashboard; `closed`: `npm run cli -- user create` does (the sandbox: open)',
    parse: oneOf(['open', 'closed'] as const),
  }),
  SIGN_IN_RATE_PER_CLIENT: setting({
    default: '10/60',
    meaning:
      'dashboard sign-ins one client address may make: `requests/seconds`, a burst then one every seconds/requests (429 with `Retry-After`); an IPv6 client counts by its /64',
    parse: rateSetting,
  }),
  SIGN_UP_RATE_PER_CLIENT: setting({
    default: '10/3600',
    meaning: 'dashboard sign-ups one client address may make, written as SIGN_IN_RATE_PER_CLIENT',
    parse: rateSetting,
  }),
  SESSION_HOURS: setting({
    default: '12',
    meaning: 'how long a dashboard sign-in lasts',
    parse: wholeNumber(1, 720),
  }),
  IDEMPOTENCY_KEY_HOURS: setting({
    default: '24',
    meaning: 'how long an `Idempotency-Key` is remembered; after that the same key runs its request again',
    parse: wholeNumber(1, 720),
  }),
  PRICE_PROVIDERS: setting({
    default: 'coingecko,binance',
    meaning:
      'price providers in order of preference: `coingecko`, `binance`, `chainlink`, `local` (the sandbox: `local`)',
    parse: (raw, name) => {
      parsePriceProviders(raw, undefined, name);
      return raw;
    },
  }),
  COINGECKO_URL: setting({
    computed: "CoinGecko's public API (its pro API with a key)",
    meaning: 'CoinGecko endpoint',
    parse: httpUrl,
  }),
  COINGECKO_API_KEY: setting({
    meaning: "a key for CoinGecko's demo or pro API",
    secret: true,
    parse: text,
  }),
  BINANCE_URL: setting({ computed: "Binance's public API", meaning: 'Binance endpoint', parse: httpUrl }),
  CHAINLINK_FEEDS: setting({
    meaning:
      'JSON: `{"BTC/USD":{"chain":"ethereum","network":"mainnet","address":"0x…","maxAgeSeconds":3600}}`',
    parse: (raw, name) => {
      parseChainlinkFeeds(raw, name);
      return raw;
    },
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValues = { [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['read']> };

function databaseUrl(raw: string, name: string): string {
  if (/^postgres(ql)?:\/\//.test(raw) || raw.startsWith('sqlite:')) return raw;
  throw new ConfigError(name, 'must start with postgres://, postgresql:// or sqlite:');
}

function redisUrl(raw: string, name: string): string {
  if (/^rediss?:\/\/[^\s]+$/.test(raw)) return raw;
  throw new ConfigError(name, 'must start with redis:// or rediss://');
}

function masterKey(raw: string, name: string): string {
  const bytes = Buffer.from(raw, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw.trim()) || bytes.length !== 32) {
    throw new ConfigError(name, `must be 32 bytes in base64; ${MASTER_KEY_HINT}`);
  }
  return raw.trim();
}

/** `ROLES=api,watcher,deliverer`: split them across processes when scaling out. */
function roles(raw: string, name: string): Record<RoleName, boolean> {
  const named = list(raw);
  const unknown = named.filter((role) => !(ROLE_NAMES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    throw new ConfigError(name, `unknown role ${unknown.join(', ')} (use ${ROLE_NAMES.join(', ')})`);
  }
  if (named.length === 0) throw new ConfigError(name, 'name at least one role');
  return {
    api: named.includes('api'),
    watcher: named.includes('watcher'),
    deliverer: named.includes('deliverer'),
  };
}

/** Settings by name, as a chain family declares its own (`FamilyModule.settings`). */
export type SettingsTable = [string, Setting<unknown>][];

/**
 * Every setting in the order the docs list them: the gateway's, with the families' own (`family`)
 * after the node endpoints.
 */
export function everySetting(family: SettingsTable): SettingsTable {
  return Object.entries(SETTINGS).flatMap(
    ([name, entry]): SettingsTable =>
      name === '<CHAIN>_<NETWORK>_WS_URL' ? [[name, entry], ...family] : [[name, entry]],
  );
}

/** What is wrong with the settings of `table` in `env`, one problem per setting. */
export function settingProblems(table: SettingsTable, env: Env): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of table) collectProblems(problems, () => entry.read(env, name));
  return problems;
}

/** Reads every setting; each one that cannot be read becomes a problem, and its value stays undefined. */
export function readSettings(env: Env): { values: Partial<SettingValues>; problems: ConfigProblem[] } {
  const values: Partial<Record<SettingName, unknown>> = {};
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    values[name] = collectProblems(problems, () => entry.read(env, name));
  }
  return { values: values as Partial<SettingValues>, problems };
}
