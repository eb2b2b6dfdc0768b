import type { Generated } from 'kysely';

/**
 * The shared tables' types, the same on SQLite and Postgres. Times are ISO-8601 UTC text, flags are 0/1
 * integers and amounts are decimal text, so both databases store and return the same values. A family's
 * own tables are typed in its folder, and its store code reads them through `db.withTables<...>()`.
 */
export interface Database {
  users: UsersTable;
  plans: PlansTable;
  subscriptions: SubscriptionsTable;
  api_tokens: ApiTokensTable;
  user_passwords: UserPasswordsTable;
  sessions: SessionsTable;
  quota_usage: QuotaUsageTable;
  request_days: RequestDaysTable;
  addresses: AddressesTable;
  wallets: WalletsTable;
  transactions: TransactionsTable;
  webhooks: WebhooksTable;
  watch_versions: WatchVersionsTable;
  chain_cursors: ChainCursorsTable;
  chain_blocks: ChainBlocksTable;
  notifications: NotificationsTable;
  notification_attempts: NotificationAttemptsTable;
  pending_events: PendingEventsTable;
  leases: LeasesTable;
  password_failures: PasswordFailuresTable;
  counters: CountersTable;
  idempotency_keys: IdempotencyKeysTable;
  sponsors: SponsorsTable;
  sponsor_jobs: SponsorJobsTable;
  sponsor_ledger: SponsorLedgerTable;
  sweeps: SweepsTable;
}

export interface UsersTable {
  id: string;
  email: string;
  created_at: string;
  /** 1, 2, 3 ... in creation order, unique: the integer `user_id` of the history (from `counters`). */
  number: number;
}

export interface PlansTable {
  name: string;
  period: string;
  /** null: unlimited. */
  quota_webhooks: number | null;
  quota_addresses: number | null;
  quota_requests: number | null;
  quota_transactions: number | null;
  /** Requests one token may make per `rate_seconds`; both null: no rate limit. */
  rate_requests: number | null;
  rate_seconds: number | null;
  /** JSON of chain -> the sponsored fees allowed per period, in the chain's coin; null: none. */
  sponsored_json: string | null;
  updated_at: string;
}

export interface SubscriptionsTable {
  user_id: string;
  plan: string;
  status: string;
  is_yearly: number;
  starts_at: string;
  ends_at: string | null;
  payment_method: string | null;
  crypto_currency: string | null;
  crypto_address: string | null;
  eur_amount: string | null;
  crypto_amount: string | null;
  qr_code: string | null;
  updated_at: string;
}

export interface ApiTokensTable {
  /** Public lookup id, also the readable part of the token. */
  id: string;
  user_id: string;
  name: string;
  /** SHA-256 of the token's secret part, hex. The token itself is never stored. */
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface UserPasswordsTable {
  user_id: string;
  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url); the password itself is never stored. */
  password_hash: string;
  updated_at: string;
}

export interface SessionsTable {
  /** SHA-256 of the session cookie's secret, hex. */
  id_hash: string;
  user_id: string;
  /** SHA-256 of the session's CSRF token, hex. */
  csrf_hash: string;
  created_at: string;
  expires_at: string;
}

export interface QuotaUsageTable {
  user_id: string;
  /** Start of the quota period this row counts, ISO text. */
  period_start: string;
  requests: Generated<number>;
  transactions: Generated<number>;
}

/** Requests per user and UTC day (`2026-11-28`): what the Account page charts. */
export interface RequestDaysTable {
  user_id: string;
  day: string;
  requests: Generated<number>;
}

export interface AddressesTable {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  address: string;
  public_key: string;
  /** JSON of a SealedKey; null for an unsecure address (no key kept) and for an address derived from a wallet. */
  sealed_key: string | null;
  /** The HD wallet this address was derived from; null for a single-key address. */
  wallet_id: string | null;
  /** Its index below the wallet's account node; null for a single-key address. */
  derivation_index: number | null;
  created_at: string;
  updated_at: string;
}

/** HD wallets: one seed each, their addresses derived by index (rows of `addresses` with `wallet_id`). */
export interface WalletsTable {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  /** Unique per user, chain and network; how the API names the wallet. */
  name: string;
  label: string | null;
  /** JSON of a SealedKey holding the BIP-39 entropy, sealed with the wallet password. */
  sealed_seed: string;
  /** The hardened account node the addresses hang from, e.g. m/84'/0'/0'. */
  account_path: string;
  /** That node's extended public key: new receive addresses are derived from it without the password. */
  account_xpub: string;
  /** The index the next derived address takes. */
  next_index: number;
  created_at: string;
  updated_at: string;
}

export interface TransactionsTable {
  id: Generated<number>;
  user_id: string;
  blockchain: string;
  network: string;
  type: string;
  txid: string | null;
  from: string | null;
  to: string | null;
  contractaddress: string | null;
  /** Decimal text in the asset's units with the asset's decimals (rows before that rule: 12 or more). */
  amount: string | null;
  tokenid: string | null;
  /** The node's answer (or the error) as JSON text. */
  response_json: string | null;
  http_status: number | null;
  created_at: string;
  updated_at: string;
  /** The idempotency key's row (idempotency_keys.id) the send ran under, if any. */
  idempotency_id: Generated<string | null>;
}

export interface WebhooksTable {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  url: string;
  from_address: string | null;
  to_address: string | null;
  contract_address: string | null;
  token_id: string | null;
  /** The exact comment a matching transfer carries (TON); null for any. */
  comment: string | null;
  type: string | null;
  confirmations: number;
  notify_reverted: number;
  /** 1: also notified (event `pending`) of a matching transfer seen unconfirmed, where the chain has a mempool. */
  notify_pending: number;
  /** 'none' (manual retry only, as the spec) or 'backoff'. */
  retry_policy: string;
  /** Signing secret sealed with the master key (custody/master-key.ts). */
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  is_active: number;
  is_invalid: number;
  invalid_reason: string | null;
  change_version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface WatchVersionsTable {
  chain: string;
  network: string;
  version: number;
}

export interface ChainCursorsTable {
  chain: string;
  network: string;
  block_number: number;
  block_hash: string;
  updated_at: string;
}

export interface ChainBlocksTable {
  chain: string;
  network: string;
  block_number: number;
  block_hash: string;
  parent_hash: string;
}

export interface NotificationsTable {
  id: string;
  webhook_id: string;
  user_id: string;
  chain: string;
  network: string;
  /** 'transfer', 'reverted' or 'pending'. */
  event: string;
  txid: string;
  log_index: number;
  block_number: number;
  block_hash: string;
  /** The JSON body sent to the subscriber, fixed when the notification is created. */
  payload: string;
  /** pending | delivering | delivered | failed | cancelled (its block left the chain before it went out). */
  status: string;
  attempts: number;
  next_attempt_at: string;
  claimed_by: string | null;
  claim_expires_at: string | null;
  response_status: number | null;
  response_body: string | null;
  block_time: string;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  /** When a reorg removed this transfer's block: the row no longer stops a re-inclusion's notification. */
  left_chain_at: string | null;
  /** On a `reverted` notification: the `transfer` notification it takes back (one each). */
  reverts_id: string | null;
}

export interface NotificationAttemptsTable {
  id: string;
  notification_id: string;
  attempted_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export interface PendingEventsTable {
  id: string;
  webhook_id: string;
  chain: string;
  network: string;
  block_number: number;
  block_hash: string;
  ready_at_block: number;
  /** The matched TransferEvent as JSON (amounts as decimal strings). */
  event: string;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface PasswordFailuresTable {
  /** `address:<user>|<chain>|<network>|<address>`, `wallet:<user>|<chain>|<network>|<wallet id>` or `user:<id>`. */
  subject: string;
  /** Wrong passwords in the current window. */
  failures: number;
  window_ends_at: string;
  /** Lockouts in a row, for the doubling; forgotten a day after the last one ended. */
  lockouts: number;
  locked_until: string | null;
  updated_at: string;
}

/** Named counters a transaction increments under a row lock (`users.number`: the last user number given). */
export interface CountersTable {
  name: string;
  value: number;
}

export interface IdempotencyKeysTable {
  user_id: string;
  /** The client's Idempotency-Key, as sent. */
  key: string;
  /** A new id for each use of the key (the history's `idempotency_id`). */
  id: string;
  method: string;
  /** The route pattern (`/api/v2/:chain/transactions`). */
  route: string;
  /** HMAC-SHA256 of the request (route, path values, network, body) under a key from the master key. */
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  /** The answer's body, sealed with the master key. */
  response_sealed: string | null;
  send_started_at: string | null;
  lease_token: string | null;
  locked_until: string | null;
  created_at: string;
  expires_at: string;
}

/** The sponsor of a chain and network (src/sponsorship/sponsors.ts). */
export interface SponsorsTable {
  chain: string;
  network: string;
  /** The operator's user whose custodial address it is. */
  user_id: string;
  address: string;
  /** Its private key, sealed with the master key (jobs sign with it at any hour). */
  key_sealed: string;
  /** Base units of the coin it may spend per period; null: no limit. */
  budget: string | null;
  period: string;
  updated_at: string;
}

/** The delivery of a job's or a sweep's `callback_url`. */
interface CallbackColumns {
  callback_url: string | null;
  callback_secret_sealed: string | null;
  /** `due`, `delivered` or `failed`; null while the job runs or without a callback. */
  callback_state: string | null;
  callback_attempts: number;
  callback_next_at: string | null;
  callback_error: string | null;
}

/** One sponsored transfer (a paymaster request, a sweep's address) or an activation, run in the background. */
export interface SponsorJobsTable extends CallbackColumns {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  kind: string;
  sweep_id: string | null;
  status: string;
  reason: string | null;
  transfer_json: string;
  owner_key_sealed: string | null;
  reserved: string;
  txid: string | null;
  notes_json: string;
  lease_token: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

/** Every cost a sponsor bore, exactly, by job and transaction. */
export interface SponsorLedgerTable {
  job_id: string;
  user_id: string;
  chain: string;
  network: string;
  what: string;
  units: string;
  txid: string;
  created_at: string;
}

/** A sweep: many of a user's addresses gathered into one. */
export interface SweepsTable extends CallbackColumns {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  to: string;
  contract: string | null;
  min_units: string | null;
  from_json: string | null;
  password_sealed: string | null;
  status: string;
  skipped_json: string;
  lease_token: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}
