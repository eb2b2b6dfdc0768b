/**
 * New slots as a Solana node announces them: `slotSubscribe` over its PubSub WebSocket
 * (`SOLANA_<NETWORK>_WS_URL`; the project's devnet serves it on its HTTP port, a validator on the next
 * port up). A notification names a slot just processed, which the watcher's confirmed head reaches a
 * little later, so it only wakes the watcher and passes no height.
 */
import type { HeadNotifier } from '../follower.ts';
import { NodeSubscription } from '../node-subscription.ts';

export function solanaSlotNotifications(url: string): HeadNotifier {
  return {
    listen(onHead, logger) {
      const subscription = new NodeSubscription({
        url,
        subscribe: { method: 'slotSubscribe', params: [] },
        notification: 'slotNotification',
        // A slot comes every 400 ms: a socket silent this long is dead. (PubSub has no method to ping with.)
        idleMs: 20_000,
        onNotification: () => onHead(null),
        onSubscribed: () => onHead(null),
        logger,
      });
      subscription.start();
      return { stop: () => subscription.stop() };
    },
  };
}
