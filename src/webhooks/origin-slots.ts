/** Bounds the per-webhook room sent with each claim query. */
const MAX_LISTED_WEBHOOKS = 500;
/** Past this many remembered webhooks the memory starts over. */
const MAX_REMEMBERED_WEBHOOKS = 50_000;
/**
 * Rows claimed ahead for an origin that keeps up, in multiples of its cap: enough that the requests go on
 * while the deliverer's write of the last answers and claim of the next rows (a commit) is under way. On
 * Postgres that turn (begin, record, claim, commit) takes 10-15 ms on a busy machine, in which a receiver
 * at 5,000/s takes 50-75 rows: at three times a cap of 16 its slots stood empty over half the time.
 */
export const BACKLOG_PER_SLOT = 8;
/** An origin keeps up while its last answer was a 2xx within this time. */
export const KEEPS_UP_WITHIN_MS = 250;

/**
 * Deliveries in flight per origin (scheme, host and port: two ports are two servers), under a cap, and
 * which webhooks post to each origin, so the next claims take no more rows than their origin has free slots:
 * a slow or dead endpoint never holds up the others, and no row is claimed only to be handed back. An
 * origin whose last answer was a prompt 2xx may have rows claimed ahead (BACKLOG_PER_SLOT times its cap):
 * they wait in the deliverer for a slot, and the cap on requests in flight stays as it is.
 */
export class OriginSlots {
  private readonly busyByOrigin = new Map<string, number>();
  /** Which origin each recently seen webhook posts to, and the reverse. */
  private readonly originOfWebhook = new Map<string, string>();
  private readonly webhooksOfOrigin = new Map<string, Set<string>>();
  /** Origins whose last answer was a prompt 2xx. */
  private readonly keepingUp = new Set<string>();

  constructor(private readonly perOrigin: number) {}

  /** How the origin's last request went: a prompt 2xx lets rows be claimed ahead for it, anything else stops it. */
  noteAnswer(origin: string, status: number | null, durationMs: number): void {
    if (status !== null && status >= 200 && status < 300 && durationMs <= KEEPS_UP_WITHIN_MS) {
      if (this.keepingUp.size >= MAX_REMEMBERED_WEBHOOKS) this.keepingUp.clear();
      this.keepingUp.add(origin);
    } else {
      this.keepingUp.delete(origin);
    }
  }

  keepsUp(origin: string): boolean {
    return this.keepingUp.has(origin);
  }

  /**
   * Rows that may be claimed beyond the free request slots: what the origins that keep up may still hold
   * waiting for a slot, beside the `waitingFor` rows they hold; summed no further than `most`.
   */
  aheadRoom(waitingFor: (origin: string) => number, most: number): number {
    let room = 0;
    for (const origin of this.keepingUp) {
      if (room >= most) break;
      room += Math.max(0, this.perOrigin * BACKLOG_PER_SLOT - waitingFor(origin));
    }
    return Math.min(room, most);
  }

  /** Whether an origin that keeps up may hold more rows than it has in flight and `waitingFor` it. */
  roomAhead(waitingFor: (origin: string) => number): boolean {
    for (const origin of this.keepingUp) if (this.mayWait(origin, waitingFor(origin))) return true;
    return false;
  }

  /** Rows the origin may hold, in flight and waiting for a slot. */
  allowance(origin: string): number {
    return this.keepingUp.has(origin) ? this.perOrigin * (1 + BACKLOG_PER_SLOT) : this.perOrigin;
  }

  /** Whether a claimed row of the origin may wait for a slot, with `waiting` rows already waiting. */
  mayWait(origin: string, waiting: number): boolean {
    return (this.busyByOrigin.get(origin) ?? 0) + waiting < this.allowance(origin);
  }

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
   * How many rows each webhook may take in the next claim: what its origin's allowance leaves beside the
   * requests in flight and the rows `waitingFor` it. Webhooks of a busy origin, or of one that keeps up,
   * are listed (at most MAX_LISTED_WEBHOOKS of them); any other takes up to the whole cap.
   */
  room(waitingFor: (origin: string) => number = () => 0): WebhookRoom {
    const byWebhook = new Map<string, number>();
    const origins = new Set([...this.busyByOrigin.keys(), ...this.keepingUp]);
    for (const origin of origins) {
      const held = (this.busyByOrigin.get(origin) ?? 0) + waitingFor(origin);
      const free = Math.max(0, this.allowance(origin) - held);
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
