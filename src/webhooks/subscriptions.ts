import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { QuotaService } from '../accounts/quotas.ts';
import { type ChainName, type Network, networkNamed } from '../chains/types.ts';
import type { MasterKey } from '../custody/master-key.ts';
import { type FieldError, notFound, validationFailed } from '../errors.ts';
import type { Database, WebhooksTable } from '../store/schema.ts';
import { displayAddress, webhookRules } from './chain-rules.ts';
import { generateWebhookSecret } from './signing.ts';
import { bumpWatchVersion } from './watch-versions.ts';
import type { WebhookInput } from './webhook-input.ts';

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
  /** The comment a transfer must carry (chains with comments: TON); null for any. */
  comment: string | null;
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

type UrlCheck = (url: string) => Promise<string | null>;

/** The columns a subscription's input sets. */
type Validated = Pick<
  WebhooksTable,
  | 'url'
  | 'from_address'
  | 'to_address'
  | 'contract_address'
  | 'token_id'
  | 'comment'
  | 'type'
  | 'confirmations'
  | 'notify_reverted'
  | 'notify_pending'
  | 'retry_policy'
>;

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

  /**
   * What the input's schema cannot say: its addresses and transfer type on this chain, at least one
   * filter, what the chain can report, and where the URL leads. The types and bounds of the fields were
   * checked against the schema as the request arrived.
   */
  private async validate(chain: ChainName, input: WebhookInput): Promise<Validated> {
    const rules = webhookRules(chain);
    const errors: FieldError[] = [];
    const address = (field: 'from' | 'to' | 'contractaddress') => {
      const value = given(input[field]);
      if (value === null) return null;
      if (!rules.isAddress(value)) {
        errors.push({ field, message: `The ${field} field must be a valid ${chain} address.` });
        return null;
      }
      return rules.normalize(value);
    };

    const url = input.url.trim();
    const from = address('from');
    const to = address('to');
    const contract = address('contractaddress');
    if (contract !== null && !rules.hasContracts) {
      errors.push({ field: 'contractaddress', message: `${chain} webhooks have no contract address.` });
    }
    const tokenId = given(input.token_id);
    // A number a double writes in exponent form (1e+21) names no token.
    if (tokenId !== null && !/^[0-9A-Za-z._-]+$/.test(tokenId)) {
      errors.push({ field: 'token_id', message: 'The token_id field must be a token id.' });
    }
    const comment = input.comment === undefined || input.comment === '' ? null : input.comment;
    if (comment !== null && rules.hasComments !== true) {
      errors.push({ field: 'comment', message: `${chain} transfers carry no comment to filter on.` });
    }
    const filters = [from, to, contract, tokenId, comment];
    if (filters.every((filter) => filter === null) && errors.length === 0) {
      errors.push({
        field: 'to',
        message: 'At least one of from, to, contractaddress, token_id or comment is required.',
      });
    }
    let type = given(input.type)?.toUpperCase() ?? null;
    if (type !== null) {
      type = rules.aliases?.[type] ?? type;
      if (!rules.types.includes(type)) {
        errors.push({ field: 'type', message: `The type field must be one of ${rules.types.join(', ')}.` });
      }
    }
    const notifyPending = flag(input.notify_pending);
    if (notifyPending && !rules.hasMempool)
      errors.push({
        field: 'notify_pending',
        message: `${chain} has no mempool to report pending transfers from.`,
      });
    if (errors.length === 0) {
      const refused = await this.checkUrl(url);
      if (refused !== null) errors.push({ field: 'url', message: refused });
    }
    if (errors.length > 0) throw validationFailed(errors);
    return {
      url,
      from_address: from,
      to_address: to,
      contract_address: contract,
      token_id: tokenId,
      comment,
      type,
      confirmations: given(input.confirmations) === null ? 0 : Number(input.confirmations),
      notify_reverted: flag(input.notify_reverted) ? 1 : 0,
      notify_pending: notifyPending ? 1 : 0,
      retry_policy: input.retry === 'backoff' ? 'backoff' : 'none',
    };
  }
}

/** A field's text, trimmed; null when not given (absent or empty, as a form sends it). */
function given(value: string | number | undefined): string | null {
  return value === undefined || value === '' ? null : String(value).trim();
}

/** A flag as the schema admits it: a boolean, or its text in a form. */
function flag(value: boolean | string | undefined): boolean {
  return value === true || value === 'true' || value === '1';
}

export function toOut(row: WebhooksTable): WebhookOut {
  return {
    id: row.id,
    blockchain: row.chain,
    network: row.network,
    url: row.url,
    // Stored normalized for matching (EVM lower case); shown in the chain's display form (EIP-55).
    from: displayAddress(row.chain, networkNamed(row.network), row.from_address),
    to: displayAddress(row.chain, networkNamed(row.network), row.to_address),
    contractaddress: displayAddress(row.chain, networkNamed(row.network), row.contract_address),
    token_id: row.token_id,
    comment: row.comment,
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
