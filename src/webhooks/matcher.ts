import type { TransferEvent } from '../chains/types.ts';
import { capacityFor, grown, resized, StringTable } from './string-table.ts';

/** What the matcher keeps of a subscription (addresses already in the chain's normalized form). */
export interface MatchableWebhook {
  id: string;
  userId: string;
  from: string | null;
  to: string | null;
  contract: string | null;
  tokenId: string | null;
  /** The exact comment a transfer must carry (TON); null for any. */
  comment: string | null;
  type: string | null;
  confirmations: number;
  notifyReverted: boolean;
  /** Also told of a matching transfer while it is unconfirmed (`pending`). */
  notifyPending: boolean;
}

type Field = 'to' | 'from' | 'tokenId' | 'contract' | 'comment';

/** Most selective first: a subscription is indexed once, under the first filter field it sets. */
const INDEX_ORDER: readonly Field[] = ['to', 'from', 'tokenId', 'contract', 'comment'];
const FIELDS = INDEX_ORDER.length;

/** A filter a subscription leaves unset; a slot of no subscription. */
const NONE = -1;
/** A transfer's value that no subscription names (or null): equal to no set filter. */
const UNKNOWN = -2;

const NOTIFY_REVERTED = 1;
const NOTIFY_PENDING = 2;

/** Few distinct strings held by many (user ids, transfer types), numbered for compact storage. */
class Interner {
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];

  intern(name: string): number {
    let number = this.numbers.get(name);
    if (number === undefined) {
      number = this.names.push(name) - 1;
      this.numbers.set(name, number);
    }
    return number;
  }

  find(name: string): number {
    return this.numbers.get(name) ?? UNKNOWN;
  }

  name(number: number): string {
    return this.names[number]!;
  }
}

/**
 * Subscriptions of one (chain, network) indexed by filter value. A transfer is matched with at most five
 * hash lookups plus a check of the candidates found there, whatever the number of subscriptions: every
 * subscription sits in exactly one index, under its most selective field, and must agree on every field
 * it sets (filters are ANDed, as Chaingateway's are).
 *
 * Held compactly, for a million subscriptions fit in a watcher: a subscription is a slot numbered by its
 * id in a string table, its fields are entry numbers of one shared table of values (addresses, contracts,
 * token ids) in typed arrays, and each value heads a linked list of the slots indexed under it. Objects
 * are made only for the subscriptions a transfer matches.
 */
export class WebhookMatcher {
  /** Subscription ids: an id's entry number is its subscription's slot. */
  private readonly ids = new StringTable();
  private readonly values = new StringTable();
  private readonly users = new Interner();
  private readonly types = new Interner();

  /** Per slot, FIELDS values each in INDEX_ORDER: entry numbers in `values`, or NONE. */
  private fields = new Int32Array(0);
  private user = new Uint32Array(0);
  /** Type number, or NONE for any type. */
  private type = new Int16Array(0);
  private confirmations = new Uint32Array(0);
  private flags = new Uint8Array(0);
  /** The slots indexed under one value, as a doubly linked list: removal costs no walk. */
  private next = new Int32Array(0);
  private previous = new Int32Array(0);
  /** Per value entry: the first slot indexed under it, or NONE. */
  private heads = new Int32Array(0);
  /** Slots asking for `pending`: few, and looked through when caught up with the chain. */
  private readonly pendingSlots = new Set<number>();
  /** A transfer's values as entry numbers (or UNKNOWN), in INDEX_ORDER; reused by every `match`. */
  private readonly wanted = new Int32Array(FIELDS);

  get size(): number {
    return this.ids.size;
  }

  upsert(webhook: MatchableWebhook): void {
    this.remove(webhook.id);
    if (INDEX_ORDER.every((field) => webhook[field] === null)) return;
    const slot = this.ids.acquire(webhook.id);
    if (slot >= this.next.length) this.makeRoomForSlots(this.ids.span);
    for (let i = 0; i < FIELDS; i++) {
      const value = webhook[INDEX_ORDER[i]!];
      this.fields[slot * FIELDS + i] = value === null ? NONE : this.values.acquire(value);
    }
    if (this.values.span > this.heads.length) this.heads = grown(this.heads, this.values.span, NONE);
    this.user[slot] = this.users.intern(webhook.userId);
    this.type[slot] = webhook.type === null ? NONE : this.types.intern(webhook.type);
    this.confirmations[slot] = webhook.confirmations;
    this.flags[slot] =
      (webhook.notifyReverted ? NOTIFY_REVERTED : 0) | (webhook.notifyPending ? NOTIFY_PENDING : 0);
    this.link(slot);
    if (webhook.notifyPending && (webhook.to !== null || webhook.from !== null)) this.pendingSlots.add(slot);
  }

  remove(id: string): void {
    const slot = this.ids.find(id);
    if (slot === NONE) return;
    this.unlink(slot);
    for (let i = 0; i < FIELDS; i++) {
      const value = this.fields[slot * FIELDS + i]!;
      if (value !== NONE) this.values.release(value);
    }
    this.pendingSlots.delete(slot);
    this.ids.release(slot);
  }

  /** Every address a subscription asking for `pending` watches: where unconfirmed transfers are looked for. */
  /** Some subscription asks for `pending` transfers. */
  get watchesPending(): boolean {
    return this.pendingSlots.size > 0;
  }

  pendingAddresses(): string[] {
    const addresses = new Set<string>();
    for (const slot of this.pendingSlots) {
      for (const field of ['to', 'from'] as const) {
        const value = this.fields[slot * FIELDS + INDEX_ORDER.indexOf(field)]!;
        if (value !== NONE) addresses.add(this.values.value(value));
      }
    }
    return [...addresses];
  }

  /** Subscriptions that want this transfer. */
  match(
    transfer: Pick<TransferEvent, 'from' | 'to' | 'contractAddress' | 'tokenId' | 'type' | 'comment'>,
  ): MatchableWebhook[] {
    const wanted = this.wanted;
    wanted[0] = this.entryOf(transfer.to);
    wanted[1] = this.entryOf(transfer.from);
    wanted[2] = this.entryOf(transfer.tokenId);
    wanted[3] = this.entryOf(transfer.contractAddress);
    wanted[4] = this.entryOf(transfer.comment ?? null);
    const type = this.types.find(transfer.type);
    const found: MatchableWebhook[] = [];
    for (let i = 0; i < FIELDS; i++) {
      const value = wanted[i]!;
      if (value < 0) continue;
      for (let slot = this.heads[value]!; slot !== NONE; slot = this.next[slot]!) {
        if (this.indexField(slot) === i && this.accepts(slot, type)) found.push(this.webhook(slot));
      }
    }
    return found;
  }

  private entryOf(value: string | null): number {
    if (value === null) return UNKNOWN;
    const entry = this.values.find(value);
    return entry === NONE ? UNKNOWN : entry;
  }

  /** Whether every filter the subscription in `slot` sets agrees with the transfer in `wanted`. */
  private accepts(slot: number, type: number): boolean {
    const base = slot * FIELDS;
    for (let i = 0; i < FIELDS; i++) {
      const value = this.fields[base + i]!;
      if (value !== NONE && value !== this.wanted[i]) return false;
    }
    const wantedType = this.type[slot]!;
    return wantedType === NONE || wantedType === type;
  }

  /** The position in INDEX_ORDER of the field `slot` is indexed under: its first one set. */
  private indexField(slot: number): number {
    const base = slot * FIELDS;
    let i = 0;
    while (this.fields[base + i] === NONE) i++;
    return i;
  }

  private webhook(slot: number): MatchableWebhook {
    const value = (field: Field) => {
      const entry = this.fields[slot * FIELDS + INDEX_ORDER.indexOf(field)]!;
      return entry === NONE ? null : this.values.value(entry);
    };
    const type = this.type[slot]!;
    return {
      id: this.ids.value(slot),
      userId: this.users.name(this.user[slot]!),
      from: value('from'),
      to: value('to'),
      contract: value('contract'),
      tokenId: value('tokenId'),
      comment: value('comment'),
      type: type === NONE ? null : this.types.name(type),
      confirmations: this.confirmations[slot]!,
      notifyReverted: (this.flags[slot]! & NOTIFY_REVERTED) !== 0,
      notifyPending: (this.flags[slot]! & NOTIFY_PENDING) !== 0,
    };
  }

  private link(slot: number): void {
    const key = this.fields[slot * FIELDS + this.indexField(slot)]!;
    const head = this.heads[key]!;
    this.next[slot] = head;
    this.previous[slot] = NONE;
    if (head !== NONE) this.previous[head] = slot;
    this.heads[key] = slot;
  }

  private unlink(slot: number): void {
    const before = this.previous[slot]!;
    const after = this.next[slot]!;
    if (before === NONE) this.heads[this.fields[slot * FIELDS + this.indexField(slot)]!] = after;
    else this.next[before] = after;
    if (after !== NONE) this.previous[after] = before;
  }

  /** Grows every per-slot array to one capacity, so that a slot fits in all of them or none. */
  private makeRoomForSlots(slots: number): void {
    const capacity = capacityFor(this.next.length, slots);
    this.fields = resized(this.fields, capacity * FIELDS, NONE);
    this.user = resized(this.user, capacity);
    this.type = resized(this.type, capacity);
    this.confirmations = resized(this.confirmations, capacity);
    this.flags = resized(this.flags, capacity);
    this.next = resized(this.next, capacity);
    this.previous = resized(this.previous, capacity);
  }
}
