/**
 * A chain's webhook rules, as its family declares them (`FamilyModule.webhookRules`): which transfer
 * types its webhooks filter on and how its addresses are compared and shown.
 */
import { familyOf, isServedChain } from '../chains/families.ts';
import type { ChainWebhookRules } from '../chains/family.ts';
import type { ChainName, Network } from '../chains/types.ts';

/** @throws Error for a chain this build does not serve (the routes refuse those before asking). */
export function webhookRules(chain: ChainName): ChainWebhookRules {
  const family = familyOf(chain);
  if (family === undefined) throw new Error(`${chain} is not served by this build`);
  return family.webhookRules(chain);
}

/**
 * A normalized address, or null, in the chain's display form. Never throws: it runs inside the watcher's
 * block transaction, where an address it cannot show must not stop the chain; it is shown as it is.
 */
export function displayAddress(chain: string, network: Network, address: string | null): string | null {
  if (address === null || !isServedChain(chain)) return address;
  try {
    return webhookRules(chain).display(address, network);
  } catch {
    return address;
  }
}
