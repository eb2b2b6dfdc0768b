import type { Migration } from 'kysely';
import { foundation } from './0001_foundation.ts';
import { custody } from './0002_custody.ts';
import { evmNonces } from './0003_evm_nonces.ts';
import { webhooks } from './0004_webhooks.ts';
import { passwordThrottle } from './0005_password_throttle.ts';
import { userNumbers } from './0006_user_numbers.ts';
import { hdWallets } from './0007_hd_wallets.ts';
import { notifyPending } from './0008_notify_pending.ts';
import { dashboardSessions } from './0009_dashboard_sessions.ts';
import { notificationReinclusion } from './0010_notification_reinclusion.ts';
import { idempotencyKeys } from './0011_idempotency_keys.ts';
import { planRates } from './0012_plan_rates.ts';

/** Every migration, in order. One set serves SQLite and Postgres. Names never change once released. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_custody': custody,
  '0003_evm_nonces': evmNonces,
  '0004_webhooks': webhooks,
  '0005_password_throttle': passwordThrottle,
  '0006_user_numbers': userNumbers,
  '0007_hd_wallets': hdWallets,
  '0008_notify_pending': notifyPending,
  '0009_dashboard_sessions': dashboardSessions,
  '0010_notification_reinclusion': notificationReinclusion,
  '0011_idempotency_keys': idempotencyKeys,
  '0012_plan_rates': planRates,
};
