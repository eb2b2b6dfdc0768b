import type { Registry as MetricsRegistry } from 'prom-client';
import type { AccountChanges } from './accounts/account-changes.ts';
import type { QuotaService } from './accounts/quotas.ts';
import type { RateLimiter } from './accounts/rate-limiter.ts';
import type { SessionStore } from './accounts/sessions.ts';
import type { SignIn } from './accounts/sign-in.ts';
import type { UserDirectory } from './accounts/users.ts';
import type { FamilyParts } from './chains/family.ts';
import type { FaucetDirectory } from './chains/faucets.ts';
import type { ChainRegistry } from './chains/registry.ts';
import type { Config } from './config.ts';
import type { AddressKeys } from './custody/address-keys.ts';
import type { HdWallets } from './custody/hd-wallets.ts';
import type { MasterKey } from './custody/master-key.ts';
import type { NodeMonitor } from './health/node-monitor.ts';
import type { TroubleLog } from './health/trouble-log.ts';
import type { Logger } from './logger.ts';
import type { PriceService } from './prices/index.ts';
import type { AccountService } from './services/accounts.ts';
import type { AddressCustody } from './services/address-custody.ts';
import type { ChainReads } from './services/chain-reads.ts';
import type { SendPipeline } from './services/send-pipeline.ts';
import type { TransactionLog } from './services/transaction-log.ts';
import type { Sponsorship } from './sponsorship/index.ts';
import type { Store } from './store/store.ts';
import type { NotificationLog } from './webhooks/notifications.ts';
import type { OutboxSignal } from './webhooks/outbox-signal.ts';
import type { DroppedSendNotifier } from './webhooks/send-failures.ts';
import type { WebhookService } from './webhooks/subscriptions.ts';
import type { IpAllowlist } from './webhooks/url-guard.ts';

/** Everything the HTTP layer and the background roles share; built once in `createContext`. */
export interface AppContext {
  config: Config;
  logger: Logger;
  store: Store;
  registry: ChainRegistry;
  users: UserDirectory;
  /** Dashboard sessions (cookie auth beside the API tokens). */
  sessions: SessionStore;
  /** Announces changes to who may call (revocations, plans, sessions ended) to every instance's caches. */
  accountChanges: AccountChanges;
  signIn: SignIn;
  quotas: QuotaService;
  /** Per-token request rates: in this process, or shared through Redis (REDIS_URL). */
  rateLimiter: RateLimiter;
  accounts: AccountService;
  addressKeys: AddressKeys;
  hdWallets: HdWallets;
  /** Custodial addresses of every chain. */
  custody: AddressCustody;
  /** The reads every chain has (head, blocks, transactions, receipts, native balances). */
  reads: ChainReads;
  transactions: TransactionLog;
  /** Every send of every family: build, key, quota, sign, broadcast, history. */
  sends: SendPipeline;
  /** What each family built on the services above (its sends, its own reads, its routes), by family name. */
  familyParts: ReadonlyMap<string, FamilyParts>;
  masterKey: MasterKey;
  webhooks: WebhookService;
  notificationLog: NotificationLog;
  /** Tells deliverers that notifications are due (the watchers' commits, retries asked through the API). */
  outbox: OutboxSignal;
  /** Tells a sender's subscriptions of a send answered 201 that will never be mined (`dropped`). */
  droppedSends: DroppedSendNotifier;
  /** Private ranges webhook URLs may reach anyway (config WEBHOOK_ALLOW_CIDRS). */
  webhookAllowlist: IpAllowlist;
  prices: PriceService;
  metrics: MetricsRegistry;
  /** Probes every node endpoint (started with the background roles); /readyz reports what it found. */
  nodeMonitor: NodeMonitor;
  /** Warnings about failing nodes and watchers, on state changes only. */
  troubleLog: TroubleLog;
  /** Fee sponsorship: the sponsors, the paymaster, sweeps and their jobs. */
  sponsorship: Sponsorship;
  /** Present only in the sandbox. */
  faucets: FaucetDirectory | null;
}
