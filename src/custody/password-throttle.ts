import type { Kysely } from 'kysely';
import { ApiError } from '../errors.ts';
import type { Database } from '../store/schema.ts';

/**
 * Wrong passwords are counted per key (an address's, or an HD wallet's seed) and per user. After too many
 * within a window, every attempt on that key (or on all the user's keys) answers 429 until the lockout
 * ends, before any key derivation runs: a stolen API token alone does not buy a stream of guesses. Each
 * further lockout lasts twice the one before, up to a cap; the doubling is forgotten a day after the last
 * lockout ended. A right password forgets the key's failures; the user's count only expires with its
 * window, so one known password does not reset the guessing budget for the others.
 *
 * Counters live in the database (shared by every instance, kept across restarts) and change only through
 * single atomic statements. Attempts that were already deriving when a lockout began still finish: the
 * overshoot is bounded by the KDF scheduler's concurrency, since its turn re-checks (see KdfCaller.admit).
 */
export interface PasswordThrottleSettings {
  /** Wrong passwords within a window that lock one address (or one wallet, or one dashboard sign-in). */
  maxFailuresPerAddress: number;
  /** Wrong passwords within a window, over all of a user's addresses, that lock all of them. */
  maxFailuresPerUser: number;
  windowSeconds: number;
  /** The first lockout; each one in a row doubles it. */
  lockoutSeconds: number;
  maxLockoutSeconds: number;
}

export const DEFAULT_PASSWORD_THROTTLE: PasswordThrottleSettings = {
  maxFailuresPerAddress: 5,
  maxFailuresPerUser: 20,
  windowSeconds: 15 * 60,
  lockoutSeconds: 60,
  maxLockoutSeconds: 60 * 60,
};

/**
 * What a password opens: a key (binding `user|chain|network|address` or `…|wallet id`) or a dashboard
 * account (binding: the email).
 */
export interface PasswordTarget {
  /** The owner whose keys are also counted together; null for a sign-in, whose user may not exist. */
  userId: string | null;
  binding: string;
  /** Counted and named apart: a single address (the default), an HD wallet's seed, or a sign-in. */
  holder?: 'address' | 'wallet' | 'account';
}

/** How long a run of lockouts is remembered after the last one ended. */
const LOCKOUT_MEMORY_MS = 24 * 60 * 60 * 1000;

export class PasswordThrottle {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: PasswordThrottleSettings = DEFAULT_PASSWORD_THROTTLE,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** @throws ApiError 429 with Retry-After (seconds) while the address or its user is locked out. */
  async assertAllowed(target: PasswordTarget): Promise<void> {
    const now = this.now();
    const key = keySubject(target);
    const locks = await this.db
      .selectFrom('password_failures')
      .select(['subject', 'locked_until'])
      .where('subject', 'in', subjects(target))
      .where('locked_until', '>', now.toISOString())
      .execute();
    let longest: { subject: string; until: number } | null = null;
    for (const lock of locks) {
      const until = Date.parse(lock.locked_until ?? '');
      if (longest === null || until > longest.until) longest = { subject: lock.subject, until };
    }
    if (longest === null) return;
    const seconds = Math.max(1, Math.ceil((longest.until - now.getTime()) / 1000));
    const scope = longest.subject === key ? `for this ${target.holder ?? 'address'}` : 'on this account';
    throw new ApiError(429, `Too many wrong passwords ${scope}; try again in ${seconds} seconds`, [], {
      'Retry-After': String(seconds),
    });
  }

  async recordFailure(target: PasswordTarget): Promise<void> {
    await this.countFailure(keySubject(target), this.settings.maxFailuresPerAddress);
    if (target.userId !== null)
      await this.countFailure(userSubject(target.userId), this.settings.maxFailuresPerUser);
  }

  /** The right password: the address (or wallet) starts afresh. */
  async recordSuccess(target: PasswordTarget): Promise<void> {
    await this.db.deleteFrom('password_failures').where('subject', '=', keySubject(target)).execute();
  }

  /**
   * One more failure, counted atomically (insert or increment); the failure that reaches the limit turns
   * the count into a lockout. Concurrent failures past the limit lock once: the second statement only
   * matches while the count it saw is still there.
   */
  private async countFailure(subject: string, limit: number): Promise<void> {
    const now = this.now();
    const nowText = now.toISOString();
    const windowEnd = new Date(now.getTime() + this.settings.windowSeconds * 1000).toISOString();
    const forgetLockoutsBefore = new Date(now.getTime() - LOCKOUT_MEMORY_MS).toISOString();
    const counted = await this.db
      .insertInto('password_failures')
      .values({
        subject,
        failures: 1,
        window_ends_at: windowEnd,
        lockouts: 0,
        locked_until: null,
        updated_at: nowText,
      })
      .onConflict((oc) =>
        oc.column('subject').doUpdateSet((eb) => {
          const windowOver = eb('password_failures.window_ends_at', '<=', nowText);
          return {
            failures: eb
              .case()
              .when(windowOver)
              .then(1)
              .else(eb('password_failures.failures', '+', 1))
              .end(),
            window_ends_at: eb
              .case()
              .when(windowOver)
              .then(windowEnd)
              .else(eb.ref('password_failures.window_ends_at'))
              .end(),
            lockouts: eb
              .case()
              .when('password_failures.locked_until', '<', forgetLockoutsBefore)
              .then(0)
              .else(eb.ref('password_failures.lockouts'))
              .end(),
            updated_at: nowText,
          };
        }),
      )
      .returning(['failures', 'lockouts'])
      .executeTakeFirstOrThrow();
    if (counted.failures < limit) return;

    const lockoutMs =
      Math.min(this.settings.lockoutSeconds * 2 ** counted.lockouts, this.settings.maxLockoutSeconds) * 1000;
    await this.db
      .updateTable('password_failures')
      .set((eb) => ({
        failures: 0,
        window_ends_at: nowText,
        lockouts: eb('lockouts', '+', 1),
        locked_until: new Date(now.getTime() + lockoutMs).toISOString(),
        updated_at: nowText,
      }))
      .where('subject', '=', subject)
      .where('failures', '>=', limit)
      .where('lockouts', '=', counted.lockouts)
      .execute();
  }
}

function keySubject(target: PasswordTarget): string {
  return `${target.holder ?? 'address'}:${target.binding}`;
}

function userSubject(userId: string): string {
  return `user:${userId}`;
}

function subjects(target: PasswordTarget): string[] {
  return target.userId === null ? [keySubject(target)] : [keySubject(target), userSubject(target.userId)];
}
