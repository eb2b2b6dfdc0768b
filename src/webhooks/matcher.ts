import type { TransferEvent } from '../chains/types.ts';

/** What the matcher keeps of a subscription (addresses already in the chain's normalized form). */
export interface MatchableWebhook {
  id: string;
  userId: string;
  from: string | null;
  to: string | null;
  contract: string | null;
  tokenId: string | null;
  type: string | null;
  confirmations: number;
  notifyReverted: boolean;
  /** Also told of a matching transfer while it is unconfirmed (`pending`). */
  notifyPending: boolean;
}

type Field = 'to' | 'from' | 'tokenId' | 'contract';

/** Most selective first: a subscription is indexed once, under the first filter field it sets. */
const INDEX_ORDER: Field[] = ['to', 'from', 'tokenId', 'contract'];

/**
 * Subscriptions of one (chain, network) indexed by filter value. A transfer is matched with at most four
 * hash lookups plus a check of the candidates found there, whatever the number of subscriptions: every
 * subscription sits in exactly one index, under its most selective field, and must agree on every field
 * it sets (filters are ANDed, as Chaingateway's are).
 */
export class WebhookMatcher {
  private readonly webhooks = new Map<string, MatchableWebhook>();
  /** Buckets hold the subscriptions themselves, so a hit costs one hash lookup, not two. */
  private readonly indexes: Record<Field, Map<string, MatchableWebhook[]>> = {
    to: new Map(),
    from: new Map(),
    tokenId: new Map(),
    contract: new Map(),
  };
  /** The addresses subscriptions asking for `pending` watch (`to` or `from`), by subscription. */
  private readonly pendingWatch = new Map<string, string[]>();

  get size(): number {
    return this.webhooks.size;
  }

  upsert(webhook: MatchableWebhook): void {
    this.remove(webhook.id);
    const field = INDEX_ORDER.find((f) => webhook[f] !== null);
    if (field === undefined) return;
    const key = webhook[field]!;
    const bucket = this.indexes[field].get(key);
    if (bucket) bucket.push(webhook);
    else this.indexes[field].set(key, [webhook]);
    this.webhooks.set(webhook.id, webhook);
    const watched = [webhook.to, webhook.from].filter((a): a is string => a !== null);
    if (webhook.notifyPending && watched.length > 0) this.pendingWatch.set(webhook.id, watched);
  }

  /** Every address a subscription asking for `pending` watches: where unconfirmed transfers are looked for. */
  pendingAddresses(): string[] {
    return [...new Set([...this.pendingWatch.values()].flat())];
  }

  remove(id: string): void {
    const webhook = this.webhooks.get(id);
    if (!webhook) return;
    const field = INDEX_ORDER.find((f) => webhook[f] !== null)!;
    const key = webhook[field]!;
    const rest = this.indexes[field].get(key)?.filter((w) => w.id !== id) ?? [];
    if (rest.length === 0) this.indexes[field].delete(key);
    else this.indexes[field].set(key, rest);
    this.webhooks.delete(id);
    this.pendingWatch.delete(id);
  }

  /** Subscriptions that want this transfer. */
  match(
    transfer: Pick<TransferEvent, 'from' | 'to' | 'contractAddress' | 'tokenId' | 'type'>,
  ): MatchableWebhook[] {
    const values: Record<Field, string | null> = {
      to: transfer.to,
      from: transfer.from,
      tokenId: transfer.tokenId,
      contract: transfer.contractAddress,
    };
    const found: MatchableWebhook[] = [];
    for (const field of INDEX_ORDER) {
      const value = values[field];
      if (value === null) continue;
      const bucket = this.indexes[field].get(value);
      if (!bucket) continue;
      for (const webhook of bucket) if (accepts(webhook, values, transfer.type)) found.push(webhook);
    }
    return found;
  }
}

function accepts(webhook: MatchableWebhook, values: Record<Field, string | null>, type: string): boolean {
  return (
    (webhook.to === null || webhook.to === values.to) &&
    (webhook.from === null || webhook.from === values.from) &&
    (webhook.tokenId === null || webhook.tokenId === values.tokenId) &&
    (webhook.contract === null || webhook.contract === values.contract) &&
    (webhook.type === null || webhook.type === type)
  );
}
