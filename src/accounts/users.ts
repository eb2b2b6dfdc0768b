import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { PlanConfig } from '../config.ts';
import { ApiError, invalidField } from '../errors.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Database, PlansTable, SubscriptionsTable } from '../store/schema.ts';
import { AccountChanges } from './account-changes.ts';
import { IdentityCache } from './identity-cache.ts';
import { type SubscriptionTerms, standingOf } from './lifecycle.ts';
import { planFromRow } from './plans.ts';
import { generateToken, parseToken, secretMatches, storedHash, tokenPrefix } from './tokens.ts';

export interface User {
  id: string;
  /** 1, 2, 3 ... in creation order: the integer `user_id` the history shows. */
  number: number;
  email: string;
  createdAt: string;
}

export interface TokenInfo {
  id: string;
  prefix: string;
  name: string;
  email: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const EMAIL_TAKEN = 'An account with this email already exists';

/** Who a request acts for: the user, the plan it meters against and the terms that say whether it gives access. */
export interface Identity {
  readonly userId: string;
  readonly plan: PlanConfig;
  readonly terms: SubscriptionTerms;
  /** How the subscription is paid, as `GET /api/account` shows it. */
  readonly billing: Billing;
}

/** The subscription's payment fields, read with the identity so the account overview needs no query. */
export type Billing = Pick<
  SubscriptionsTable,
  | 'is_yearly'
  | 'payment_method'
  | 'crypto_currency'
  | 'crypto_address'
  | 'eur_amount'
  | 'crypto_amount'
  | 'qr_code'
>;

/** A user's subscription with its plan: the part of every authentication's single query that makes an Identity. */
export function identityQuery(db: Kysely<Database>) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('plans', 'plans.name', 'subscriptions.plan')
    .selectAll('plans')
    .select([
      'subscriptions.user_id',
      'subscriptions.status',
      'subscriptions.ends_at',
      'subscriptions.updated_at as subscription_updated_at',
      'subscriptions.is_yearly',
      'subscriptions.payment_method',
      'subscriptions.crypto_currency',
      'subscriptions.crypto_address',
      'subscriptions.eur_amount',
      'subscriptions.crypto_amount',
      'subscriptions.qr_code',
    ]);
}

export function identityOf(
  row: PlansTable &
    Billing & {
      user_id: string;
      status: string;
      ends_at: string | null;
      subscription_updated_at: string;
    },
): Identity {
  const terms = {
    plan: row.name,
    status: row.status,
    endsAt: row.ends_at,
    updatedAt: row.subscription_updated_at,
  };
  const billing = {
    is_yearly: row.is_yearly,
    payment_method: row.payment_method,
    crypto_currency: row.crypto_currency,
    crypto_address: row.crypto_address,
    eur_amount: row.eur_amount,
    crypto_amount: row.crypto_amount,
    qr_code: row.qr_code,
  };
  return { userId: row.user_id, plan: planFromRow(row), terms, billing };
}

/** What a token's authentication reads, kept for a moment (identity-cache.ts). */
interface TokenRow {
  identity: Identity;
  secretHash: Buffer;
  /** When the token's use was last recorded (ms since the epoch; NaN for never). */
  lastUsedMs: number;
}

/** Users, their subscription and their API tokens. */
export class UserDirectory {
  /** By token id; the presented secret is checked against the kept hash on every request. */
  readonly #tokens = new IdentityCache<TokenRow>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly defaultPlan: string,
    private readonly now: () => Date = () => new Date(),
    /** Where a change to who may call is announced (a plan changed, a token revoked). */
    private readonly changes: AccountChanges = new AccountChanges(null),
  ) {
    changes.onChange(() => this.#tokens.clear());
  }

  async createUser(email: string, plan = this.defaultPlan): Promise<User> {
    const normalized = normalizeEmail(email);
    const createdAt = this.now().toISOString();
    const id = randomUUID();
    const number = await this.db.transaction().execute(async (trx) => {
      // First: it locks the counter row, so concurrent creators queue here and neither the number nor
      // the email check below can race another creator.
      const next = await nextUserNumber(trx);
      const existing = await trx
        .selectFrom('users')
        .select('id')
        .where('email', '=', normalized)
        .executeTakeFirst();
      if (existing) throw new ApiError(409, EMAIL_TAKEN);
      await assertPlanExists(trx, plan);
      await trx
        .insertInto('users')
        .values({ id, email: normalized, created_at: createdAt, number: next })
        .execute();
      await trx
        .insertInto('subscriptions')
        .values({
          user_id: id,
          plan,
          status: 'active',
          is_yearly: 0,
          starts_at: createdAt,
          updated_at: createdAt,
        })
        .execute();
      return next;
    });
    return { id, number, email: normalized, createdAt };
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row ? { id: row.id, number: row.number, email: row.email, createdAt: row.created_at } : null;
  }

  async findById(id: string): Promise<User | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? { id: row.id, number: row.number, email: row.email, createdAt: row.created_at } : null;
  }

  async findOrCreate(email: string): Promise<User> {
    return (await this.findByEmail(email)) ?? this.createUser(email);
  }

  /** Every user with their plan's terms and whether it still gives access (`standing`). */
  async listUsers(
    graceMs: number,
  ): Promise<(User & { plan: string; status: string; endsAt: string | null; access: string })[]> {
    const rows = await this.db
      .selectFrom('users')
      .innerJoin('subscriptions', 'subscriptions.user_id', 'users.id')
      .select([
        'users.id',
        'users.number',
        'users.email',
        'users.created_at',
        'subscriptions.plan',
        'subscriptions.status',
        'subscriptions.ends_at',
        'subscriptions.updated_at',
      ])
      .orderBy('users.created_at')
      .execute();
    const now = this.now();
    return rows.map((r) => {
      const terms = { plan: r.plan, status: r.status, endsAt: r.ends_at, updatedAt: r.updated_at };
      return {
        id: r.id,
        number: r.number,
        email: r.email,
        createdAt: r.created_at,
        plan: r.plan,
        status: r.status,
        endsAt: r.ends_at,
        access: standingOf(terms, now, graceMs).active ? 'yes' : 'lapsed',
      };
    });
  }

  async setPlan(
    userId: string,
    change: { plan: string; yearly?: boolean; endsAt?: string | null; status?: string },
  ): Promise<void> {
    await assertPlanExists(this.db, change.plan);
    await this.db
      .updateTable('subscriptions')
      .set({
        plan: change.plan,
        ...(change.yearly === undefined ? {} : { is_yearly: change.yearly ? 1 : 0 }),
        ...(change.endsAt === undefined ? {} : { ends_at: change.endsAt }),
        ...(change.status === undefined ? {} : { status: change.status }),
        updated_at: this.now().toISOString(),
      })
      .where('user_id', '=', userId)
      .execute();
    await this.changes.announce(this.db);
  }

  /** Creates a token and returns it; this is the only time the full token exists outside the caller. */
  async createToken(
    userId: string,
    name = 'default',
  ): Promise<{ id: string; token: string; createdAt: string }> {
    const { id, token, secretHash } = generateToken();
    const createdAt = this.now().toISOString();
    await this.db
      .insertInto('api_tokens')
      .values({ id, user_id: userId, name, secret_hash: secretHash, created_at: createdAt })
      .execute();
    return { id, token, createdAt };
  }

  /**
   * Revokes by id or by its `swy_<id>` prefix; with `userId`, only that user's token. Returns false when no
   * live token matched.
   */
  async revokeToken(idOrPrefix: string, userId?: string): Promise<boolean> {
    const id = idOrPrefix.startsWith('swy_') ? idOrPrefix.slice(4, 16) : idOrPrefix;
    let update = this.db
      .updateTable('api_tokens')
      .set({ revoked_at: this.now().toISOString() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null);
    if (userId !== undefined) update = update.where('user_id', '=', userId);
    const result = await update.executeTakeFirst();
    const revoked = Number(result.numUpdatedRows) > 0;
    if (revoked) await this.changes.announce(this.db);
    return revoked;
  }

  async revokeAllTokens(userId: string): Promise<number> {
    const result = await this.db
      .updateTable('api_tokens')
      .set({ revoked_at: this.now().toISOString() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const revoked = Number(result.numUpdatedRows);
    if (revoked > 0) await this.changes.announce(this.db);
    return revoked;
  }

  async listTokens(userId?: string): Promise<TokenInfo[]> {
    let query = this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        'api_tokens.id',
        'api_tokens.name',
        'users.email',
        'api_tokens.created_at',
        'api_tokens.last_used_at',
        'api_tokens.revoked_at',
      ])
      .orderBy('api_tokens.created_at');
    if (userId !== undefined) query = query.where('api_tokens.user_id', '=', userId);
    const rows = await query.execute();
    return rows.map((r) => ({
      id: r.id,
      prefix: tokenPrefix(r.id),
      name: r.name,
      email: r.email,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
    }));
  }

  /**
   * Resolves a presented token to its user and plan, or null when the token is unknown, malformed or
   * revoked. It runs on every request: the row is read in one query and kept for a moment (a revocation
   * or a plan change empties the cache at once), the secret checked against its hash every time.
   */
  authenticate(presented: string): MaybePromise<{ identity: Identity; tokenId: string } | null> {
    const parsed = parseToken(presented);
    if (!parsed) return null;
    const cached = this.#tokens.get(parsed.id);
    const check = (row: TokenRow | null) => {
      if (!row || !secretMatches(parsed.secret, row.secretHash)) return null;
      // The cached identity itself, not a copy: nothing changes an identity once read.
      const caller = { identity: row.identity, tokenId: parsed.id };
      const touched = this.touchToken(parsed.id, row);
      return touched === undefined ? caller : touched.then(() => caller);
    };
    // A cached token answers at once: no promise on the path of nearly every request.
    return cached === undefined ? this.#readToken(parsed.id).then(check) : check(cached);
  }

  async #readToken(id: string): Promise<TokenRow | null> {
    const generation = this.#tokens.generation;
    const row = await identityQuery(this.db)
      .innerJoin('api_tokens', 'api_tokens.user_id', 'subscriptions.user_id')
      .select(['api_tokens.secret_hash', 'api_tokens.last_used_at'])
      .where('api_tokens.id', '=', id)
      .where('api_tokens.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    const kept = {
      identity: identityOf(row),
      secretHash: storedHash(row.secret_hash),
      lastUsedMs: row.last_used_at === null ? Number.NaN : Date.parse(row.last_used_at),
    };
    this.#tokens.set(id, kept, generation);
    return kept;
  }

  /** Records use at most once a minute, so authentication is not a write per request (undefined: not now). */
  private touchToken(id: string, row: TokenRow): Promise<void> | undefined {
    const now = this.now();
    if (now.getTime() - row.lastUsedMs < 60_000) return undefined;
    row.lastUsedMs = now.getTime();
    return this.db
      .updateTable('api_tokens')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', id)
      .execute()
      .then(() => undefined);
  }
}

/** The email in the form it is stored and compared in; a malformed one is a 422 that names the field, never the value. */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed) || trimmed.length > 254)
    throw invalidField('email', 'The email field is not an email address.');
  return trimmed;
}

/** The next user number, taken inside the creating transaction (the counter row stays locked until it ends). */
async function nextUserNumber(trx: Transaction<Database>): Promise<number> {
  const row = await trx
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', 'users.number')
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

async function assertPlanExists(db: Kysely<Database>, plan: string): Promise<void> {
  const row = await db.selectFrom('plans').select('name').where('name', '=', plan).executeTakeFirst();
  if (!row) throw new ApiError(422, `Unknown plan "${plan}"`);
}
