import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { AccountChanges } from './account-changes.ts';
import { IdentityCache } from './identity-cache.ts';
import { hashSecret, secretMatches, storedHash } from './tokens.ts';
import { type Identity, identityOf, identityQuery } from './users.ts';

/** What the browser is given when a session opens: both only here, only their hashes are stored. */
export interface OpenedSession {
  /** The `swy_session` cookie's value (HttpOnly). */
  secret: string;
  /** The `swy_csrf` cookie's value, which the dashboard sends back as `X-CSRF-Token` on every change. */
  csrf: string;
  expiresAt: Date;
}

export interface SessionIdentity extends Identity {
  /** Whether a presented CSRF token is this session's. */
  csrfMatches(token: string): boolean;
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;

interface SessionRow {
  identity: Identity;
  csrfHash: Buffer;
  expiresAt: string;
}

/** Dashboard sessions: opened by a sign-in, resolved on each request in one query, closed by sign-out or expiry. */
export class SessionStore {
  /** By the secret's hash: the session's identity, its CSRF hash and when it ends, kept for a moment. */
  readonly #sessions = new IdentityCache<SessionRow>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly lifetimeMs: number,
    private readonly now: () => Date = () => new Date(),
    /** Where sessions ending (sign-out, a new password) are announced to every instance. */
    private readonly changes: AccountChanges = new AccountChanges(null),
  ) {
    changes.onChange(() => this.#sessions.clear());
  }

  async open(userId: string): Promise<OpenedSession> {
    const now = this.now();
    const secret = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + this.lifetimeMs);
    // The user's ended sessions go as a new one starts: the table holds live sessions and a few more.
    await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('expires_at', '<=', now.toISOString())
      .execute();
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: hashSecret(secret),
        user_id: userId,
        csrf_hash: hashSecret(csrf),
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      .execute();
    return { secret, csrf, expiresAt };
  }

  /**
   * The session's user with their plan, or null when the secret is malformed, unknown or expired. Read in
   * one query and kept for a moment (ending sessions empties the cache at once); the expiry is checked on
   * every request.
   */
  async resolve(secret: string): Promise<SessionIdentity | null> {
    if (!SECRET.test(secret)) return null;
    const idHash = hashSecret(secret);
    const row = this.#sessions.get(idHash) ?? (await this.#read(idHash));
    if (!row || row.expiresAt <= this.now().toISOString()) return null;
    return {
      ...row.identity,
      csrfMatches: (token) => SECRET.test(token) && secretMatches(token, row.csrfHash),
    };
  }

  async #read(idHash: string): Promise<SessionRow | null> {
    const generation = this.#sessions.generation;
    const row = await identityQuery(this.db)
      .innerJoin('sessions', 'sessions.user_id', 'subscriptions.user_id')
      .select(['sessions.csrf_hash', 'sessions.expires_at'])
      .where('sessions.id_hash', '=', idHash)
      .where('sessions.expires_at', '>', this.now().toISOString())
      .executeTakeFirst();
    if (!row) return null;
    const kept = {
      identity: identityOf(row),
      csrfHash: storedHash(row.csrf_hash),
      expiresAt: row.expires_at,
    };
    this.#sessions.set(idHash, kept, generation);
    return kept;
  }

  async close(secret: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', hashSecret(secret)).execute();
    await this.changes.announce(this.db);
  }

  /** Signs the user out everywhere (a new password). */
  async closeAll(userId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    await this.changes.announce(this.db);
  }
}
