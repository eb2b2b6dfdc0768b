/**
 * Price APIs are reached through the same NodeClient as blockchain nodes, so they get its per-attempt
 * timeout, jittered retries on 429/5xx and secret scrubbing. The "chain" label names the provider in
 * error messages ("coingecko api node unavailable ...").
 */
import { NodeClient } from '../chains/node-client.ts';

export interface PriceHttpOptions {
  timeoutMs?: number;
  retries?: number;
  /** Base of the jittered backoff; tests set it low. */
  backoffBaseMs?: number;
}

export function priceHttpClient(
  provider: string,
  url: string,
  headers: Record<string, string>,
  options: PriceHttpOptions,
): NodeClient {
  return new NodeClient({
    chain: provider,
    network: 'api',
    endpoints: [{ url, headers }],
    timeoutMs: options.timeoutMs ?? 5000,
    retries: options.retries ?? 2,
    ...(options.backoffBaseMs === undefined ? {} : { backoffBaseMs: options.backoffBaseMs }),
    // One endpoint: a cool-down would only delay the next request to it.
    cooldownMs: 0,
  });
}
