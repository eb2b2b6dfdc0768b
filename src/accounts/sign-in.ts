import type { Kysely } from 'kysely';
import { FULL_KDF_COST } from '../custody/kdf-cost.ts';
import { WrongPasswordError } from '../custody/key-vault.ts';
import type { PasswordTarget, PasswordThrottle } from '../custody/password-throttle.ts';
import type { ScryptCost } from '../custody/scrypt.ts';
import { throttledAttempt } from '../custody/throttled-open.ts';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import { decoyPasswordHash, hashPassword, passwordMatches } from './password-hash.ts';
import type { OpenedSession, SessionStore } from './sessions.ts';
import { normalizeEmail, type User, type UserDirectory } from './users.ts';

export const WRONG_SIGN_IN = 'Wrong email or password';

/**
 * The dashboard's accounts: sign-up (when open), sign-in throttled per email as key passwords are, and
 * passwords set by the admin CLI. An unknown email costs the same derivation as a known one, so the
 * answer's timing does not tell which emails have accounts. Sign-ins and sign-ups derive before anyone is
 * known: their derivations are anonymous work, in the KDF scheduler's bounded share, and `signal` (the
 * client's) drops one still waiting when the client has gone.
 */
export class SignIn {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly users: UserDirectory,
    private readonly sessions: SessionStore,
    private readonly throttle: PasswordThrottle,
    readonly signupOpen: boolean,
    private readonly now: () => Date = () => new Date(),
    /** The hashing cost (KDF_COST's dashboard-password cost). */
    private readonly hashCost: ScryptCost = FULL_KDF_COST.passwords,
  ) {}

  async signUp(
    email: string,
    password: string,
    signal?: AbortSignal,
  ): Promise<{ user: User; session: OpenedSession }> {
    if (!this.signupOpen) throw new ApiError(403, 'Sign-up is closed: an administrator creates accounts');
    // A malformed email is refused before it costs a derivation.
    normalizeEmail(email);
    const hash = await hashPassword(
      password,
      { anonymous: true, ...(signal === undefined ? {} : { signal }) },
      this.hashCost,
    );
    const user = await this.users.createUser(email);
    await this.storeHash(user.id, hash);
    return { user, session: await this.sessions.open(user.id) };
  }

  async signIn(
    email: string,
    password: string,
    signal?: AbortSignal,
  ): Promise<{ user: User; session: OpenedSession }> {
    const target: PasswordTarget = { userId: null, binding: normalizeEmail(email), holder: 'account' };
    const user = await throttledAttempt(
      this.throttle,
      target,
      async (caller) => {
        const found = await this.users.findByEmail(email);
        const stored = found ? await this.storedHash(found.id) : undefined;
        const matches = await passwordMatches(password, stored ?? decoyPasswordHash(this.hashCost), caller);
        if (!found || stored === undefined || !matches) throw new WrongPasswordError();
        return found;
      },
      signal,
    ).catch((error: unknown) => {
      throw error instanceof WrongPasswordError ? new ApiError(401, WRONG_SIGN_IN) : error;
    });
    return { user, session: await this.sessions.open(user.id) };
  }

  /** A new password (the admin CLI): every open session of the user ends. */
  async setPassword(userId: string, password: string): Promise<void> {
    await this.storeHash(userId, await hashPassword(password, { owner: userId }, this.hashCost));
    await this.sessions.closeAll(userId);
  }

  private async storedHash(userId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('user_passwords')
      .select('password_hash')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.password_hash;
  }

  private async storeHash(userId: string, hash: string): Promise<void> {
    const updatedAt = this.now().toISOString();
    await this.db
      .insertInto('user_passwords')
      .values({ user_id: userId, password_hash: hash, updated_at: updatedAt })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: hash, updated_at: updatedAt }))
      .execute();
  }
}
