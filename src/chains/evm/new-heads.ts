/**
 * New blocks as an EVM node announces them: `eth_subscribe` `newHeads` over its WebSocket endpoint
 * (`<CHAIN>_<NETWORK>_WS_URL`; anvil serves it on its HTTP port). The node is first asked its chain id,
 * so a WebSocket URL of another chain never drives the watcher.
 */
import type { HeadNotifier } from '../follower.ts';
import { NodeSubscription } from '../node-subscription.ts';

export function evmNewHeads(url: string, chainId: number): HeadNotifier {
  return {
    listen(onHead, logger) {
      const subscription = new NodeSubscription({
        url,
        check: {
          method: 'eth_chainId',
          params: [],
          problem: (result) =>
            quantityOf(result) === BigInt(chainId)
              ? null
              : `it serves chain id ${String(result)}, not ${chainId}`,
        },
        subscribe: { method: 'eth_subscribe', params: ['newHeads'] },
        notification: 'eth_subscription',
        // Quiet chains (a devnet mining only on demand) are asked something cheap now and then.
        probe: { method: 'eth_chainId', params: [] },
        onNotification: (head) => onHead(heightOf(head)),
        onSubscribed: () => onHead(null),
        logger,
      });
      subscription.start();
      return { stop: () => subscription.stop() };
    },
  };
}

/** The announced header's number; null when it has none the watcher could use. */
function heightOf(head: unknown): bigint | null {
  if (typeof head !== 'object' || head === null) return null;
  return quantityOf((head as { number?: unknown }).number);
}

function quantityOf(value: unknown): bigint | null {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value) ? BigInt(value) : null;
}
