import type { Migration } from 'kysely';
import { foundation } from './0001_foundation.ts';
import { custody } from './0002_custody.ts';
import { webhooks } from './0004_webhooks.ts';
import { passwordThrottle } from './0005_password_throttle.ts';
import { userNumbers } from './0006_user_numbers.ts';
import { hdWallets } from './0007_hd_wallets.ts';
import { notifyPending } from './0008_notify_pending.ts';
import { dashboardSessions } from './0009_dashboard_sessions.ts';
import { notificationReinclusion } from './0010_notification_reinclusion.ts';
import { idempotencyKeys } from './0011_idempotency_keys.ts';
import { planRates } from './0012_plan_rates.ts';
import { unsettledSends } from './0013_unsettled_sends.ts';
import { sponsorship } from './0017_sponsorship.ts';
import { requestDays } from './0018_request_days.ts';
import { webhookComments } from './0019_webhook_comments.ts';

export type Migrations = Readonly<Record<string, Migration>>;

/**
 * The shared tables' migrations. One set serves SQLite and Postgres. Names never change once released.
 * The families bring their own tables' migrations (`FamilyModule.migrations`), numbered in the same
 * sequence: the numbers missing here (0003, 0014 ...) are theirs.
 */
export const sharedMigrations: Migrations = {
  '0001_foundation': foundation,
  '0002_custody': custody,
  '0004_webhooks': webhooks,
  '0005_password_throttle': passwordThrottle,
  '0006_user_numbers': userNumbers,
  '0007_hd_wallets': hdWallets,
  '0008_notify_pending': notifyPending,
  '0009_dashboard_sessions': dashboardSessions,
  '0010_notification_reinclusion': notificationReinclusion,
  '0011_idempotency_keys': idempotencyKeys,
  '0012_plan_rates': planRates,
  '0013_unsettled_sends': unsettledSends,
  '0017_sponsorship': sponsorship,
  '0018_request_days': requestDays,
  '0019_webhook_comments': webhookComments,
};

/**
 * One list of several sets, in name order, which is the order they run in (Kysely runs by name, and
 * refuses a database that ran a name the list lacks, or that skipped one before its last). Throws for a
 * name two sets both claim.
 */
export function migrationList(...sets: readonly Migrations[]): Migrations {
  const entries = sets.flatMap((set) => Object.entries(set));
  const names = new Set<string>();
  for (const [name] of entries) {
    if (names.has(name)) throw new Error(`migration ${name} is listed twice`);
    names.add(name);
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
