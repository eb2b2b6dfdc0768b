import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

/**
 * When a subscription stops giving access. An active plan runs until `ends_at` (none: open-ended) plus a
 * grace period; a cancelled one runs until `ends_at` if that is still ahead, and no longer. Past that the
 * API answers 402 (but for GET /api/account), while the watchers go on recording the user's payment
 * notifications; they are delivered once the plan is renewed.
 *
 * The rule exists twice on purpose, in JavaScript for a request and in SQL for the deliverer's claim; both
 * compare ISO-8601 text, so a date-only `ends_at` means the start of that day (UTC) in each.
 */
export interface SubscriptionTerms {
  plan: string;
  status: string;
  endsAt: string | null;
  updatedAt: string;
}

export type Standing = { active: true } | { active: false; reason: string };

export function standingOf(terms: SubscriptionTerms, now: Date, graceMs: number): Standing {
  const { plan, status, endsAt, updatedAt } = terms;
  const nowIso = now.toISOString();
  if (status !== 'active') {
    if (endsAt !== null && endsAt > nowIso) return { active: true };
    const ran =
      endsAt === null ? `was cancelled on ${day(updatedAt)}` : `was cancelled and ran until ${day(endsAt)}`;
    return { active: false, reason: `Your ${plan} plan ${ran}. ${RENEW}` };
  }
  if (endsAt === null || endsAt > graceCutoff(now, graceMs)) return { active: true };
  const grace =
    graceMs > 0
      ? ` (the grace period ended ${day(new Date(Date.parse(endsAt) + graceMs).toISOString())})`
      : '';
  return { active: false, reason: `Your ${plan} plan expired on ${day(endsAt)}${grace}. ${RENEW}` };
}

const RENEW = 'Renew it to use the API again; GET /api/account shows its status.';

/** Kept per terms object: an identity's terms live in the identity cache and serve many requests. */
const accessEnds = new WeakMap<SubscriptionTerms, { graceMs: number; at: number }>();

/**
 * Whether the terms give access at `nowMs`, as `standingOf` says, without its dates and text: the end of
 * access is worked out once per terms object, and only a request within a second of it (or past it) asks
 * `standingOf`, so the two never disagree.
 */
export function hasAccess(terms: SubscriptionTerms, nowMs: number, graceMs: number): boolean {
  let end = accessEnds.get(terms);
  if (end === undefined || end.graceMs !== graceMs) {
    end = { graceMs, at: accessEndOf(terms, graceMs) };
    accessEnds.set(terms, end);
  }
  return nowMs < end.at - 1_000 || standingOf(terms, new Date(nowMs), graceMs).active;
}

function accessEndOf({ status, endsAt }: SubscriptionTerms, graceMs: number): number {
  if (endsAt === null) return status === 'active' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  const ends = Date.parse(endsAt) + (status === 'active' ? graceMs : 0);
  return Number.isNaN(ends) ? Number.NEGATIVE_INFINITY : ends;
}

/** The same rule as `standingOf`, as a condition on `subscriptions` rows: true for those that lapsed. */
export function lapsedCondition(now: Date, graceMs: number) {
  return lapsedConditionAt(now.toISOString(), graceCutoff(now, graceMs));
}

/** lapsedCondition with its two instants given as text: now, and now less the grace (graceCutoff). */
export function lapsedConditionAt(nowIso: string, cutoffIso: string) {
  return (eb: ExpressionBuilder<Database, 'subscriptions'>) =>
    eb.or([
      eb.and([
        eb('subscriptions.status', '<>', 'active'),
        eb.or([eb('subscriptions.ends_at', 'is', null), eb('subscriptions.ends_at', '<=', nowIso)]),
      ]),
      eb.and([
        eb('subscriptions.status', '=', 'active'),
        eb('subscriptions.ends_at', 'is not', null),
        eb('subscriptions.ends_at', '<=', cutoffIso),
      ]),
    ]);
}

/** Users whose subscription has lapsed, as a subquery for `user_id not in (...)`. */
export function lapsedUsers(db: Kysely<Database>, now: Date, graceMs: number) {
  return lapsedUsersAt(db, now.toISOString(), graceCutoff(now, graceMs));
}

/** lapsedUsers with its two instants given as text (a statement compiled once binds them per use). */
export function lapsedUsersAt(db: Kysely<Database>, nowIso: string, cutoffIso: string) {
  return db
    .selectFrom('subscriptions')
    .select('subscriptions.user_id')
    .where(lapsedConditionAt(nowIso, cutoffIso));
}

/** The end of a plan's grace period that has run out by `now`. */
export function graceCutoff(now: Date, graceMs: number): string {
  return new Date(now.getTime() - graceMs).toISOString();
}

function day(iso: string): string {
  return iso.slice(0, 10);
}
