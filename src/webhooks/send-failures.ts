import type { Kysely } from 'kysely';
import type { TransferEvent } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';
import { webhookRules } from './chain-rules.ts';
import { enqueueDropped } from './outbox.ts';
import type { OutboxSignal } from './outbox-signal.ts';

/** Dropped-send notices over the store: the port a family that gives up sends is handed by the context. */
export class DroppedSendNotifier {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly outbox: OutboxSignal | null,
  ) {}

  notify(userId: string, transfer: TransferEvent, reason: string, now: Date): Promise<number> {
    return notifyDroppedSend(this.db, this.outbox, userId, transfer, reason, now);
  }
}

/**
 * Tells a sender that a send the gateway answered 201 for will never be mined: each of the user's
 * subscriptions on that chain and network that watches the sending address (`from`), and whose other
 * filters agree with the transfer, gets one `dropped` notification, signed and delivered like any other.
 * A subscription on the receiver alone hears nothing: no transfer ever reached it. Returns how many
 * notifications were queued.
 */
export async function notifyDroppedSend(
  db: Kysely<Database>,
  outbox: OutboxSignal | null,
  userId: string,
  transfer: TransferEvent,
  reason: string,
  now: Date,
): Promise<number> {
  const rules = webhookRules(transfer.chain);
  if (transfer.from === null) return 0;
  const normal = (address: string | null) => (address === null ? null : rules.normalize(address));
  const from = normal(transfer.from);
  const to = normal(transfer.to);
  const contract = normal(transfer.contractAddress);
  const queued = await db.transaction().execute(async (trx) => {
    const webhooks = await trx
      .selectFrom('webhooks')
      .select(['id', 'user_id'])
      .where('user_id', '=', userId)
      .where('chain', '=', transfer.chain)
      .where('network', '=', transfer.network)
      .where('deleted_at', 'is', null)
      .where('is_active', '=', 1)
      .where('is_invalid', '=', 0)
      .where('from_address', '=', from)
      .where((eb) => eb.or([eb('to_address', 'is', null), eb('to_address', '=', to ?? '')]))
      .where((eb) => eb.or([eb('contract_address', 'is', null), eb('contract_address', '=', contract ?? '')]))
      .where((eb) => eb.or([eb('token_id', 'is', null), eb('token_id', '=', transfer.tokenId ?? '')]))
      .where((eb) => eb.or([eb('type', 'is', null), eb('type', '=', transfer.type)]))
      .where((eb) => eb.or([eb('comment', 'is', null), eb('comment', '=', transfer.comment ?? '')]))
      .execute();
    for (const webhook of webhooks) {
      await enqueueDropped(trx, { id: webhook.id, userId: webhook.user_id }, transfer, reason, now);
    }
    if (webhooks.length > 0) await outbox?.announce(trx);
    return webhooks.length;
  });
  if (queued > 0) outbox?.committed();
  return queued;
}
