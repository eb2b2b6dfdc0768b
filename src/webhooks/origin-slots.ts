/** Bounds the per-webhook room sent with each claim query. */
const MAX_LISTED_WEBHOOKS = 500;
/** Past this many remembered webhooks the memory starts over. */
const MAX_REMEMBERED_WEBHOOKS = 50_000;

/**
 * Deliveries in flight per origin (scheme, host and port: two ports are two servers), under a cap, and
 * which webhooks post to each origin, so the next claims take no more rows than their origin has free slots:
 * a slow or dead endpoint never holds up the others, and no row is claimed only to be handed back.
 */
export class OriginSlots {
  private readonly busyByOrigin = new Map<string, number>();
  /** Which origin each recently seen webhook posts to, and the reverse. */
  private readonly originOfWebhook = new Map<string, string>();
  private readonly webhooksOfOrigin = new Map<string, Set<string>>();

  constructor(private readonly perOrigin: number) {}

  isFull(origin: string): boolean {
    return (this.busyByOrigin.get(origin) ?? 0) >= this.perOrigin;
  }

  take(origin: string): void {
    this.busyByOrigin.set(origin, (this.busyByOrigin.get(origin) ?? 0) + 1);
  }

  free(origin: string): void {
    const busy = (this.busyByOrigin.get(origin) ?? 1) - 1;
    if (busy <= 0) this.busyByOrigin.delete(origin);
    else this.busyByOrigin.set(origin, busy);
  }

  remember(webhookId: string, origin: string): void {
    const previous = this.originOfWebhook.get(webhookId);
    if (previous === origin) return;
    if (previous !== undefined) this.webhooksOfOrigin.get(previous)?.delete(webhookId);
    if (this.originOfWebhook.size >= MAX_REMEMBERED_WEBHOOKS) {
      // Only an optimisation: forgetting costs at most one handed-back claim per webhook.
      this.originOfWebhook.clear();
      this.webhooksOfOrigin.clear();
    }
    this.originOfWebhook.set(webhookId, origin);
    let ids = this.webhooksOfOrigin.get(origin);
    if (ids === undefined) {
      ids = new Set();
      this.webhooksOfOrigin.set(origin, ids);
    }
    ids.add(webhookId);
  }

  /**
   * How many rows each webhook may take in the next claim: the free slots of its origin. Webhooks of a
   * busy origin are listed (at most MAX_LISTED_WEBHOOKS of them); any other takes up to the whole cap.
   */
  room(): WebhookRoom {
    const byWebhook = new Map<string, number>();
    for (const [origin, busy] of this.busyByOrigin) {
      const free = Math.max(0, this.perOrigin - busy);
      for (const id of this.webhooksOfOrigin.get(origin) ?? []) {
        if (byWebhook.size >= MAX_LISTED_WEBHOOKS) return { otherwise: this.perOrigin, byWebhook };
        byWebhook.set(id, free);
      }
    }
    return { otherwise: this.perOrigin, byWebhook };
  }
}

/** Rows one claim may give each webhook, so an origin is not handed more rows than it has free slots. */
export interface WebhookRoom {
  /** For the webhooks not listed: their origin is idle or not known yet. */
  otherwise: number;
  /** Webhooks of busy origins and their origin's free slots; 0 leaves the webhook out of the claim. */
  byWebhook: ReadonlyMap<string, number>;
}

/** The origin a webhook URL posts to; '' for a URL that does not parse (all such share one slot set). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
