/** Bounds the exclusion list sent with each claim query. */
const MAX_EXCLUDED_WEBHOOKS = 500;
/** Past this many remembered webhooks the memory starts over. */
const MAX_REMEMBERED_WEBHOOKS = 50_000;

/**
 * Deliveries in flight per origin (scheme, host and port: two ports are two servers), under a cap, and
 * which webhooks post to a full origin, so the next claims leave them out and a slow or dead endpoint
 * never holds up the others.
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

  /** The known webhooks of the full origins, at most MAX_EXCLUDED_WEBHOOKS of them. */
  saturatedWebhooks(): string[] {
    const excluded: string[] = [];
    for (const [origin, busy] of this.busyByOrigin) {
      if (busy < this.perOrigin) continue;
      for (const id of this.webhooksOfOrigin.get(origin) ?? []) {
        if (excluded.length >= MAX_EXCLUDED_WEBHOOKS) return excluded;
        excluded.push(id);
      }
    }
    return excluded;
  }
}

/** The origin a webhook URL posts to; '' for a URL that does not parse (all such share one slot set). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
