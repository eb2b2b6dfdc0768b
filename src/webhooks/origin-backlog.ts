/**
 * Claimed rows waiting, per origin, for one of its request slots: a deliverer claims ahead for a receiver
 * that keeps up, so a slot freed by an answer is refilled at once rather than after the next database turn.
 * First in, first out per origin.
 */
export class OriginBacklog<Item> {
  private readonly byOrigin = new Map<string, Item[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  waitingFor(origin: string): number {
    return this.byOrigin.get(origin)?.length ?? 0;
  }

  hold(origin: string, item: Item): void {
    let items = this.byOrigin.get(origin);
    if (items === undefined) {
      items = [];
      this.byOrigin.set(origin, items);
    }
    items.push(item);
    this.count++;
  }

  /** The origins with rows waiting, for a pass that hands them their freed slots. */
  origins(): string[] {
    return [...this.byOrigin.keys()];
  }

  /** The oldest row waiting for `origin`, taken out of the backlog. */
  next(origin: string): Item | undefined {
    const items = this.byOrigin.get(origin);
    const item = items?.shift();
    if (item === undefined) return undefined;
    this.count--;
    if (items!.length === 0) this.byOrigin.delete(origin);
    return item;
  }

  /** Every row waiting, taken out (a stop hands them back). */
  takeAll(): Item[] {
    const all = [...this.byOrigin.values()].flat();
    this.byOrigin.clear();
    this.count = 0;
    return all;
  }
}
