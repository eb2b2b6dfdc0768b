import type { Generated } from 'kysely';

/**
 * Table types shared by SQLite and Postgres. Times are ISO-8601 UTC text, flags are 0/1 integers and
 * amounts are decimal text, so both databases store and return the same values.
 */
export interface Database {
  users: UsersTable;
  plans: PlansTable;
  subscriptions: SubscriptionsTable;
  api_tokens: ApiTokensTable;
  quota_usage: QuotaUsageTable;
  addresses: AddressesTable;
  transactions: TransactionsTable;
}

export interface UsersTable {
  id: string;
  email: string;
  created_at: string;
}

export interface PlansTable {
  name: string;
  period: string;
  /** null: unlimited. */
  quota_webhooks: number | null;
  quota_addresses: number | null;
  quota_requests: number | null;
  quota_transactions: number | null;
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

export interface QuotaUsageTable {
  user_id: string;
  /** Start of the quota period this row counts, ISO text. */
  period_start: string;
  requests: Generated<number>;
  transactions: Generated<number>;
}

export interface AddressesTable {
  id: string;
  user_id: string;
  chain: string;
  network: string;
  address: string;
  public_key: string;
  /** JSON of a SealedKey; null for an unsecure address (no key kept). */
  sealed_key: string | null;
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
  /** Decimal text in the asset's units, 12 fraction digits as Chaingateway lists them. */
  amount: string | null;
  tokenid: string | null;
  /** The node's answer (or the error) as JSON text. */
  response_json: string | null;
  http_status: number | null;
  created_at: string;
  updated_at: string;
}
