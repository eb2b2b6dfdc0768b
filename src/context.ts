import type { Registry as MetricsRegistry } from 'prom-client';
import { AccountChanges } from './accounts/account-changes.ts';
import { QuotaService } from './accounts/quotas.ts';
import { LocalRateLimiter, type RateLimiter } from './accounts/rate-limiter.ts';
import { SessionStore } from './accounts/sessions.ts';
import { SignIn } from './accounts/sign-in.ts';
import { UserDirectory } from './accounts/users.ts';
import type { AppContext } from './app-context.ts';
import type { ChainFamily } from './chains/chain-family.ts';
import { chainFamilies, FAMILIES, familyOf, familySettings, servedChainProblems } from './chains/families.ts';
import type { FaucetDirectory } from './chains/faucets.ts';
import type { FamilyPorts } from './chains/ports.ts';
import { buildRegistry } from './chains/registry.ts';
import type { ChainName } from './chains/types.ts';
import { settingProblems } from './config/settings.ts';
import { type Config, ConfigError } from './config.ts';
import { AddressKeys } from './custody/address-keys.ts';
import { HdWallets } from './custody/hd-wallets.ts';
import { kdfCostOf } from './custody/kdf-cost.ts';
import { registerKdfMetrics } from './custody/kdf-metrics.ts';
import { kdfScheduler } from './custody/kdf-scheduler.ts';
import { MasterKey } from './custody/master-key.ts';
import { PasswordThrottle } from './custody/password-throttle.ts';
import { GATEWAY_MIGRATIONS } from './gateway-migrations.ts';
import { NodeMetrics } from './health/node-metrics.ts';
import { NodeMonitor } from './health/node-monitor.ts';
import { TroubleLog } from './health/trouble-log.ts';
import { createMetricsRegistry } from './http/metrics.ts';
import type { Logger } from './logger.ts';
import {
  createPriceService,
  type PriceService,
  parsePriceProviders,
  readChainlinkFeeds,
} from './prices/index.ts';
import { AccountService } from './services/accounts.ts';
import { AddressCustody } from './services/address-custody.ts';
import { ChainReads } from './services/chain-reads.ts';
import { SendPipeline } from './services/send-pipeline.ts';
import { TransactionLog } from './services/transaction-log.ts';
import { Sponsorship } from './sponsorship/index.ts';
import { openReadyStore } from './store/ready-store.ts';
import { NotificationLog } from './webhooks/notifications.ts';
import { OutboxSignal } from './webhooks/outbox-signal.ts';
import { DroppedSendNotifier } from './webhooks/send-failures.ts';
import { WebhookService } from './webhooks/subscriptions.ts';
import { checkWebhookUrl, type IpAllowlist, parseIpAllowlist } from './webhooks/url-guard.ts';

export interface ContextOptions {
  logger: Logger;
  /** The chains to serve; every family this build has unless a test narrows it. */
  chains?: Partial<Record<ChainName, ChainFamily>>;
  faucets?: FaucetDirectory | null;
  /** In place of the configured price providers (tests). */
  prices?: PriceService;
  /** Postgres schema to work in (tests isolate themselves this way). */
  pgSchema?: string;
  now?: () => Date;
}

/** Opens the store, applies migrations, syncs plans and wires the services every role shares. */
export async function createContext(config: Config, options: ContextOptions): Promise<AppContext> {
  const { logger, now } = options;
  // The families' own settings, in case the config was loaded without their table.
  const settingsProblems = settingProblems(familySettings(), config.familySettings);
  if (settingsProblems.length > 0) throw new ConfigError(settingsProblems);
  const chainProblems = servedChainProblems(config);
  if (chainProblems.length > 0) throw new ConfigError(chainProblems);
  const families = options.chains ?? chainFamilies();
  const webhookAllowlist = allowlistOf(config);
  const masterKey = MasterKey.load(config.masterKey, config.dataDir);
  const metrics = createMetricsRegistry();
  const nodeMetrics = new NodeMetrics(metrics);
  const registry = buildRegistry(config, logger, families, (chain, network, endpoint) =>
    nodeMetrics.callFailed({ chain, network, endpoint }),
  );
  const troubleLog = new TroubleLog();
  const prices = options.prices ?? priceServiceOf(config, registry, logger);
  const store = await openReadyStore(
    config,
    GATEWAY_MIGRATIONS,
    options.pgSchema === undefined ? {} : { pgSchema: options.pgSchema },
  );
  const quotas = new QuotaService(store.db, store.dialect, now);
  // One scheduler per process, as libuv's thread pool is.
  kdfScheduler.configure(config.kdf);
  registerKdfMetrics(metrics);
  const passwordThrottle = new PasswordThrottle(store.db, config.passwordThrottle, now);
  const kdfCost = kdfCostOf(config.kdfCost);
  const addressKeys = new AddressKeys(store.db, quotas, passwordThrottle, now, kdfCost.sealedKeys);
  const transactions = new TransactionLog(store.db, now);
  const hdWallets = new HdWallets(store.db, quotas, passwordThrottle, now, kdfCost.sealedKeys);
  const accountChanges = new AccountChanges(store.dialect);
  const users = new UserDirectory(store.db, config.defaultPlan, now, accountChanges);
  const sessions = new SessionStore(store.db, config.dashboard.sessionMs, now, accountChanges);
  const outbox = new OutboxSignal(store.dialect);
  const shared: Omit<AppContext, 'familyParts' | 'sponsorship'> = {
    config,
    logger,
    store,
    registry,
    users,
    sessions,
    accountChanges,
    signIn: new SignIn(
      store.db,
      users,
      sessions,
      passwordThrottle,
      config.dashboard.signupOpen,
      now,
      kdfCost.passwords,
    ),
    quotas,
    rateLimiter: await rateLimiterOf(config, logger, metrics),
    accounts: new AccountService(store.db, quotas, config.planGraceMs, now),
    addressKeys,
    hdWallets,
    custody: new AddressCustody({ registry, addressKeys, familyOf, settings: config.familySettings }),
    reads: new ChainReads({ registry, familyOf, transactions }),
    transactions,
    sends: new SendPipeline({
      addressKeys,
      hdWallets,
      transactions,
      quotas,
      familyOf,
      settings: config.familySettings,
    }),
    masterKey,
    webhooks: new WebhookService(
      store.db,
      quotas,
      masterKey,
      (url) => checkWebhookUrl(url, webhookAllowlist),
      now,
    ),
    notificationLog: new NotificationLog(store.db),
    outbox,
    droppedSends: new DroppedSendNotifier(store.db, outbox),
    webhookAllowlist,
    metrics,
    nodeMonitor: new NodeMonitor({
      config,
      registry,
      families,
      metrics: nodeMetrics,
      trouble: troubleLog,
      logger: logger.child({ role: 'node-monitor' }),
    }),
    troubleLog,
    faucets: options.faucets ?? null,
    prices,
  };
  // Each family builds its own parts once, on the ports of the services every family shares.
  const ports: FamilyPorts = {
    registry,
    store,
    logger,
    settings: config.familySettings,
    sends: shared.sends,
    custody: shared.custody,
    hdWallets,
    history: transactions,
    troubleLog,
    droppedSends: shared.droppedSends,
  };
  const familyParts = new Map(FAMILIES.map((family) => [family.name, family.createParts(ports)]));
  const sponsorship = new Sponsorship({
    store,
    masterKey,
    quotas,
    registry,
    familyOf,
    familyParts,
    provenKey: (caller, proof, address) => shared.sends.provenKey(caller, proof, address),
    addressesOf: async (caller) => (await shared.custody.list(caller)).map((row) => row.address),
    now,
  });
  return { ...shared, familyParts, sponsorship };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.nodeMonitor.stop();
  // The requests counted since the last batch reach the database before it closes.
  await ctx.quotas.requests.flush();
  await ctx.prices.close();
  await ctx.registry.closeAll();
  await ctx.rateLimiter.close();
  await ctx.store.close();
}

/** Shared through Redis when REDIS_URL is set; else this process's own (the clock is real time, always). */
async function rateLimiterOf(config: Config, logger: Logger, metrics: MetricsRegistry): Promise<RateLimiter> {
  const { url, prefix } = config.redis;
  if (url === undefined) return new LocalRateLimiter();
  // Imported only when Redis is configured: its client is some 20 MiB a lone gateway never uses.
  const { RedisRateLimiter } = await import('./accounts/redis-rate-limiter.ts');
  return new RedisRateLimiter({ url, prefix, logger, metrics });
}

function allowlistOf(config: Config): IpAllowlist {
  try {
    return parseIpAllowlist(config.webhookAllowCidrs.join(','));
  } catch (error) {
    throw new ConfigError('WEBHOOK_ALLOW_CIDRS', (error as Error).message);
  }
}

function priceServiceOf(config: Config, registry: ReturnType<typeof buildRegistry>, logger: Logger) {
  const { providers, coingeckoUrl, coingeckoApiKey, binanceUrl, chainlinkFeeds } = config.prices;
  try {
    return createPriceService({
      providers: parsePriceProviders(providers),
      ...(coingeckoUrl === undefined ? {} : { coingeckoUrl }),
      ...(coingeckoApiKey === undefined ? {} : { coingeckoApiKey }),
      ...(binanceUrl === undefined ? {} : { binanceUrl }),
      chainlinkFeeds: readChainlinkFeeds(chainlinkFeeds),
      registry,
      timeoutMs: config.nodeTimeoutMs,
      retries: config.nodeRetries,
      logger: logger.child({ role: 'prices' }),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('PRICE_PROVIDERS', (error as Error).message);
  }
}
