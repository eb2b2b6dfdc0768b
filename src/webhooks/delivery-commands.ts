import type { Kysely } from 'kysely';
import type { ChainName, Network } from '../chains/types.ts';
import { ApiError, notFound } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import type { OutboxSignal } from './outbox-signal.ts';

/**
 * What the API asks of deliveries. The lists (all, failed) are the notification log's; re-enabling a
 * webhook disabled by a 410 is its PUT (WebhookService.update); here is the manual retry.
 */

/**
 * `POST .../notifications/:id/retry`: 404 unless the notification is the caller's on this chain and
 * network, 422 unless it failed; then it is due again at once, and the deliverers are told so. Returns
 * the id as stored (lower case).
 */
export async function retryFailedNotification(
  store: Store,
  outbox: OutboxSignal,
  userId: string,
  chain: ChainName,
  network: Network,
  notificationId: string,
): Promise<string> {
  const status = await ownedStatus(store.db, userId, chain, network, notificationId);
  const id = notificationId.toLowerCase();
  if (status !== 'failed' || !(await retryNotification(store, userId, id))) {
    throw new ApiError(422, `Only a failed notification can be retried; this one is ${status}`);
  }
  // The update is committed: the NOTIFY goes out at once, to other instances' deliverers.
  await outbox.announce(store.db);
  outbox.committed();
  return id;
}

/**
 * The owner's failed notification goes back to pending, due now, with the same id (receivers dedupe
 * on it). Returns false when there is no such failed notification.
 */
export async function retryNotification(
  store: Store,
  userId: string,
  notificationId: string,
  now: Date = new Date(),
): Promise<boolean> {
  const at = now.toISOString();
  const result = await store.db
    .updateTable('notifications')
    .set({ status: 'pending', next_attempt_at: at, claimed_by: null, claim_expires_at: null, updated_at: at })
    .where('id', '=', notificationId)
    .where('user_id', '=', userId)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The notification's delivery status; 404 unless it is the caller's, on this chain and network. */
async function ownedStatus(
  db: Kysely<Database>,
  userId: string,
  chain: ChainName,
  network: Network,
  id: string,
): Promise<string> {
  const row = /^[0-9a-f-]{36}$/i.test(id)
    ? await db
        .selectFrom('notifications')
        .select('status')
        .where('id', '=', id.toLowerCase())
        .where('user_id', '=', userId)
        .where('chain', '=', chain)
        .where('network', '=', network)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound('Notification not found');
  return row.status;
}
