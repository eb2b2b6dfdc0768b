/**
 * What a subscriber was told, net: each `transfer` taken back by a `reverted` of the same transfer (same
 * transaction, block, asset and amount) cancels out, and what remains is what it must believe happened.
 */
import type { ReceivedRequest } from '../helpers/webhook-receiver.ts';

/** The fields of a notification that say which transfer it is about. */
export interface NotifiedTransfer {
  txid: string;
  blocknumber: string;
  type: string;
  contractaddress: string | null;
  to: string;
  amount_raw: string;
  decimals: number;
}

export interface DeliveredNotification extends NotifiedTransfer {
  id: string;
  webhook_id: string;
  event: string;
}

export function transferKey(transfer: NotifiedTransfer): string {
  return [
    transfer.txid.toLowerCase(),
    transfer.blocknumber,
    transfer.type,
    transfer.contractaddress?.toLowerCase() ?? '-',
    transfer.to.toLowerCase(),
    transfer.amount_raw,
    transfer.decimals,
  ].join(' ');
}

/** The notifications received, once each: deduplicated by `webhook-id`, whose repeats must be the very same body. */
export function uniqueDeliveries(received: readonly ReceivedRequest[]): DeliveredNotification[] {
  const bodies = new Map<string, string>();
  for (const request of received) {
    const id = request.headers['webhook-id'];
    if (typeof id !== 'string') throw new Error(`a delivery without webhook-id: ${request.body}`);
    const earlier = bodies.get(id);
    if (earlier !== undefined && earlier !== request.body) {
      throw new Error(`webhook-id ${id} was delivered with two different bodies`);
    }
    bodies.set(id, request.body);
  }
  return [...bodies.values()].map((body) => JSON.parse(body) as DeliveredNotification);
}

/** The notifications received, once each, grouped by webhook: transfer key -> net count. */
export function netNotifications(
  deliveries: readonly DeliveredNotification[],
): Map<string, Map<string, number>> {
  const byWebhook = new Map<string, Map<string, number>>();
  for (const delivered of deliveries) {
    const sign = delivered.event === 'transfer' ? 1 : delivered.event === 'reverted' ? -1 : 0;
    if (sign === 0) throw new Error(`unexpected event ${delivered.event}`);
    const net = byWebhook.get(delivered.webhook_id) ?? new Map<string, number>();
    const key = transferKey(delivered);
    net.set(key, (net.get(key) ?? 0) + sign);
    byWebhook.set(delivered.webhook_id, net);
  }
  return byWebhook;
}

/** Only the keys that did not cancel out, with their counts: what a subscriber is left believing. */
export function standing(net: ReadonlyMap<string, number> | undefined): Record<string, number> {
  return Object.fromEntries([...(net ?? new Map<string, number>())].filter(([, count]) => count !== 0));
}
