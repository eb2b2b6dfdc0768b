import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { QuotaService } from '../accounts/quotas.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { MasterKey } from '../custody/master-key.ts';
import { type FieldError, notFound, validationFailed } from '../errors.ts';
import type { Database, WebhooksTable } from '../store/schema.ts';
import { displayAddress, WEBHOOK_RULES } from './chain-rules.ts';
import { generateWebhookSecret } from './signing.ts';
import { bumpWatchVersion } from './watch-versions.ts';

/** A subscription as the API receives it (POST and PUT take the same body). */
export interface WebhookInput {
  url?: unknown;
  from?: unknown;
  to?: unknown;
  contractaddress?: unknown;
  token_id?: unknown;
  type?: unknown;
  confirmations?: unknown;
  notify_reverted?: unknown;
  notify_pending?: unknown;
  retry?: unknown;
}

/** The stored object as Chaingateway shows it, plus Switchyard's options. */
export interface WebhookOut {
  id: string;
  blockchain: string;
  network: string;
  url: string;
  from: string | null;
  to: string | null;
  contractaddress: string | null;
  token_id: string | null;
  type: string | null;
  confirmations: number;
  notify_reverted: boolean;
  notify_pending: boolean;
  retry: string;
  is_active: boolean;
  is_invalid: boolean;
  invalid_reason: string | null;
  old_id: null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** How long the previous secret keeps signing after a rotation, so receivers can switch without a gap. */
export const SECRET_ROTATION_WINDOW_MS = 24 * 3_600_000;
export const MAX_CONFIRMATIONS = 1_000;
export const MAX_URL_LENGTH = 2048;

type UrlCheck = (url: string) => Promise<string | null>;

interface Validated {
  url: string;
  from_address: string | null;
  to_address: string | null;
  contract_address: string | null;
  token_id: string | null;
  type: string | null;
  confirmations: number;
  notify_reverted: number;
  notify_pending: number;
  retry_policy: string;
}

/**
 * Webhook subscriptions per user, chain and network. Every change bumps the (chain, network) version in
 * the same transaction, so watchers pick it up before they match the next block.
 */
export class WebhookService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly quotas: QuotaService,
    private readonly masterKey: MasterKey,
    private readonly checkUrl: UrlCheck,
    private readonly now: () => Date = () => new Date(),
  ) {
    quotas.registerCounter('webhooks', async (db, userId) => {
      const row = await db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    });
  }

  async create(userId: string, chain: ChainName, network: Network, input: WebhookInput) {
    const fields = await this.validate(chain, input);
    const id = randomUUID();
    const secret = generateWebhookSecret();
    const at = this.now().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await this.quotas.assertCapacity(userId, 'webhooks', trx);
      await trx
        .insertInto('webhooks')
        .values({
          id,
          user_id: userId,
          chain,
          network,
          ...fields,
          secret_sealed: this.masterKey.seal(secret, id),
          previous_secret_sealed: null,
          previous_secret_expires_at: null,
          is_active: 1,
          is_invalid: 0,
          invalid_reason: null,
          change_version: await bumpWatchVersion(trx, chain, network),
          created_at: at,
          updated_at: at,
          deleted_at: null,
        })
        .execute();
    });
    return { webhook: id, secret };
  }

  async list(userId: string, chain: ChainName, network: Network): Promise<WebhookOut[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('user_id', '=', userId)
      .where('chain', '=', chain)
      .where('network', '=', network)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .execute();
    return rows.map(toOut);
  }

  async get(userId: string, chain: ChainName, network: Network, id: string): Promise<WebhookOut> {
    return toOut(await this.owned(this.db, userId, chain, network, id));
  }

  /** PUT: the same body as POST replaces the filter; a webhook disabled by 410 or failures is re-enabled. */
  async update(userId: string, chain: ChainName, network: Network, id: string, input: WebhookInput) {
    const fields = await this.validate(chain, input);
    await this.db.transaction().execute(async (trx) => {
      await this.owned(trx, userId, chain, network, id);
      await trx
        .updateTable('webhooks')
        .set({
          ...fields,
          is_active: 1,
          is_invalid: 0,
          invalid_reason: null,
          change_version: await bumpWatchVersion(trx, chain, network),
          updated_at: this.now().toISOString(),
        })
        .where('id', '=', id)
        .execute();
    });
    return this.get(userId, chain, network, id);
  }

  async remove(userId: string, chain: ChainName, network: Network, id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.owned(trx, userId, chain, network, id);
      const at = this.now().toISOString();
      await trx
        .updateTable('webhooks')
        .set({ deleted_at: at, updated_at: at, change_version: await bumpWatchVersion(trx, chain, network) })
        .where('id', '=', id)
        .execute();
    });
  }

  /** The secret that signs now, for its owner to read again (as svix shows an endpoint's secret). */
  async secret(userId: string, chain: ChainName, network: Network, id: string): Promise<{ secret: string }> {
    const row = await this.owned(this.db, userId, chain, network, id);
    return { secret: this.masterKey.open(row.secret_sealed, id) };
  }

  /** A new secret; the old one keeps signing beside it for SECRET_ROTATION_WINDOW_MS. */
  async rotateSecret(userId: string, chain: ChainName, network: Network, id: string) {
    const secret = generateWebhookSecret();
    await this.db.transaction().execute(async (trx) => {
      const row = await this.owned(trx, userId, chain, network, id);
      const current = this.masterKey.open(row.secret_sealed, id);
      const now = this.now();
      await trx
        .updateTable('webhooks')
        .set({
          secret_sealed: this.masterKey.seal(secret, id),
          previous_secret_sealed: this.masterKey.seal(current, `${id}:previous`),
          previous_secret_expires_at: new Date(now.getTime() + SECRET_ROTATION_WINDOW_MS).toISOString(),
          updated_at: now.toISOString(),
        })
        .where('id', '=', id)
        .execute();
    });
    return {
      webhook: id,
      secret,
      previous_secret_valid_until: new Date(this.now().getTime() + SECRET_ROTATION_WINDOW_MS).toISOString(),
    };
  }

  private async owned(
    db: Kysely<Database> | Transaction<Database>,
    userId: string,
    chain: string,
    network: string,
    id: string,
  ) {
    if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound('Webhook not found');
    const row = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .where('user_id', '=', userId)
      .where('chain', '=', chain)
      .where('network', '=', network)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw notFound('Webhook not found');
    return row;
  }

  private async validate(chain: ChainName, input: WebhookInput): Promise<Validated> {
    const rules = WEBHOOK_RULES[chain];
    const errors: FieldError[] = [];
    const text = (field: keyof WebhookInput) => {
      const value = input[field];
      if (value === undefined || value === null || value === '') return null;
      if (typeof value !== 'string' && typeof value !== 'number') {
        errors.push({ field, message: `The ${field} field must be a string.` });
        return null;
      }
      return String(value).trim();
    };
    const address = (field: 'from' | 'to' | 'contractaddress') => {
      const value = text(field);
      if (value === null) return null;
      if (!rules.isAddress(value)) {
        errors.push({ field, message: `The ${field} field must be a valid ${chain} address.` });
        return null;
      }
      return rules.normalize(value);
    };

    const url = text('url');
    if (url === null) errors.push({ field: 'url', message: 'The url field is required.' });
    else if (url.length > MAX_URL_LENGTH)
      errors.push({ field: 'url', message: `The url field must be at most ${MAX_URL_LENGTH} characters.` });
    const from = address('from');
    const to = address('to');
    const contract = address('contractaddress');
    if (contract !== null && !rules.hasContracts) {
      errors.push({ field: 'contractaddress', message: `${chain} webhooks have no contract address.` });
    }
    const tokenId = text('token_id');
    if (tokenId !== null && !/^[0-9A-Za-z._-]{1,80}$/.test(tokenId)) {
      errors.push({ field: 'token_id', message: 'The token_id field must be a token id.' });
    }
    if (
      from === null &&
      to === null &&
      contract === null &&
      tokenId === null &&
      !errors.some((e) => e.field !== 'url')
    ) {
      errors.push({
        field: 'to',
        message: 'At least one of from, to, contractaddress or token_id is required.',
      });
    }
    let type = text('type')?.toUpperCase() ?? null;
    if (type !== null) {
      type = rules.aliases?.[type] ?? type;
      if (!rules.types.includes(type)) {
        errors.push({ field: 'type', message: `The type field must be one of ${rules.types.join(', ')}.` });
      }
    }
    const confirmations = integer(input.confirmations, 0);
    if (confirmations === null || confirmations < 0 || confirmations > MAX_CONFIRMATIONS) {
      errors.push({
        field: 'confirmations',
        message: `The confirmations field must be 0 to ${MAX_CONFIRMATIONS}.`,
      });
    }
    const notifyReverted = flag(input.notify_reverted);
    if (notifyReverted === null)
      errors.push({ field: 'notify_reverted', message: 'The notify_reverted field must be a boolean.' });
    const notifyPending = flag(input.notify_pending);
    if (notifyPending === null)
      errors.push({ field: 'notify_pending', message: 'The notify_pending field must be a boolean.' });
    else if (notifyPending && !rules.hasMempool)
      errors.push({
        field: 'notify_pending',
        message: `${chain} has no mempool to report pending transfers from.`,
      });
    const retry = text('retry') ?? 'none';
    if (retry !== 'none' && retry !== 'backoff') {
      errors.push({ field: 'retry', message: 'The retry field must be none or backoff.' });
    }
    if (errors.length === 0 && url !== null) {
      const refused = await this.checkUrl(url);
      if (refused !== null) errors.push({ field: 'url', message: refused });
    }
    if (errors.length > 0) throw validationFailed(errors);
    return {
      url: url!,
      from_address: from,
      to_address: to,
      contract_address: contract,
      token_id: tokenId,
      type,
      confirmations: confirmations!,
      notify_reverted: notifyReverted ? 1 : 0,
      notify_pending: notifyPending ? 1 : 0,
      retry_policy: retry,
    };
  }
}

function integer(raw: unknown, fallback: number): number | null {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const text = String(raw);
  return /^\d{1,6}$/.test(text) ? Number(text) : null;
}

function flag(raw: unknown): boolean | null {
  if (raw === undefined || raw === null || raw === '') return false;
  if (raw === true || raw === 'true' || raw === '1' || raw === 1) return true;
  if (raw === false || raw === 'false' || raw === '0' || raw === 0) return false;
  return null;
}

export function toOut(row: WebhooksTable): WebhookOut {
  return {
    id: row.id,
    blockchain: row.chain,
    network: row.network,
    url: row.url,
    // Stored normalized for matching (EVM lower case); shown in the chain's display form (EIP-55).
    from: displayAddress(row.chain, row.from_address),
    to: displayAddress(row.chain, row.to_address),
    contractaddress: displayAddress(row.chain, row.contract_address),
    token_id: row.token_id,
    type: row.type,
    confirmations: row.confirmations,
    notify_reverted: row.notify_reverted === 1,
    notify_pending: row.notify_pending === 1,
    retry: row.retry_policy,
    is_active: row.is_active === 1,
    is_invalid: row.is_invalid === 1,
    invalid_reason: row.invalid_reason,
    old_id: null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}
