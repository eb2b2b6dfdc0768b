const EMPTY = -1;
const GROWTH = 1.5;
/** Byte length is kept in 16 bits: ids, addresses and token ids are far shorter. */
const MAX_BYTES = 0xffff;

/** The length to grow an array of `current` items to, by `GROWTH` steps, for `needed` items to fit. */
export function capacityFor(current: number, needed: number): number {
  let length = Math.max(current, 64);
  while (length < needed) length = Math.ceil(length * GROWTH);
  return length;
}

/** The typed arrays the tables keep their columns in. */
type IntegerArray = Uint8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/** A copy of `array` of `length` items, those added set to `fill`. */
export function resized<T extends IntegerArray>(array: T, length: number, fill = 0): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array);
  if (fill !== 0) copy.fill(fill, array.length);
  return copy;
}

/** `array`, or a copy grown by `GROWTH` steps, with room for `needed` items. */
export function grown<T extends IntegerArray>(array: T, needed: number, fill = 0): T {
  return needed <= array.length ? array : resized(array, capacityFor(array.length, needed), fill);
}

/**
 * A counted set of short strings kept as UTF-8 bytes in one buffer, numbered: an entry costs its bytes
 * plus about 20, where a JS string held in a Map costs 80 to 100 bytes on a 64-bit heap. Numbers and
 * their bytes are reused once an entry's last holder releases it. Lookups take a JS string and allocate
 * nothing for ASCII, the form of every address, id and token id the matcher holds.
 */
export class StringTable {
  private bytes = new Uint8Array(1024);
  private bytesUsed = 0;
  private starts = new Uint32Array(0);
  private lengths = new Uint16Array(0);
  private holders = new Uint32Array(0);
  /** Each entry's hash: growing the slots and removing from them read no bytes again. */
  private hashes = new Uint32Array(0);
  /** Entry numbers handed out so far, live or free. */
  private entries = 0;
  private live = 0;
  /** Released entry numbers by byte length, so a new string of that length takes their place. */
  private readonly released = new Map<number, number[]>();
  /** Open addressing with linear probing, at most half full: entry numbers, or EMPTY. */
  private slots = new Int32Array(64).fill(EMPTY);
  /** The string looked up last, as bytes, and its hash: `acquire` after `find` of one string loads it once. */
  private key = new Uint8Array(256);
  private keyLength = 0;
  private keyHash = 0;
  private keyValue: string | null = null;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  /** Live entries. */
  get size(): number {
    return this.live;
  }

  /** One more than the highest entry number handed out: per-entry arrays beside the table need this room. */
  get span(): number {
    return this.entries;
  }

  /** The entry of `value`, or -1 when no one holds it. */
  find(value: string): number {
    return this.slots[this.probe(this.load(value))]!;
  }

  /** The entry of `value`, made if new, with one more holder. */
  acquire(value: string): number {
    const hash = this.load(value);
    const slot = this.probe(hash);
    let entry = this.slots[slot]!;
    if (entry === EMPTY) {
      entry = this.store(hash);
      if ((this.live + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
      this.slots[this.probe(hash)] = entry;
      this.live++;
    }
    this.holders[entry]!++;
    return entry;
  }

  /** One holder fewer; the last one frees the entry. */
  release(entry: number): void {
    if (!((this.holders[entry] ?? 0) > 0)) throw new Error(`string table entry ${entry} is not held`);
    if (--this.holders[entry]! > 0) return;
    this.unlink(entry);
    this.live--;
    const length = this.lengths[entry]!;
    const free = this.released.get(length);
    if (free) free.push(entry);
    else this.released.set(length, [entry]);
  }

  /** The string of a live entry. */
  value(entry: number): string {
    const start = this.starts[entry]!;
    return this.decoder.decode(this.bytes.subarray(start, start + this.lengths[entry]!));
  }

  /** Puts `value`'s UTF-8 bytes in `key` and returns their hash. */
  private load(value: string): number {
    if (value === this.keyValue) return this.keyHash;
    if (value.length * 3 > this.key.length) this.key = new Uint8Array(value.length * 3);
    const key = this.key;
    let length = 0;
    for (; length < value.length; length++) {
      const code = value.charCodeAt(length);
      if (code >= 0x80) {
        length = this.encoder.encodeInto(value, key).written;
        break;
      }
      key[length] = code;
    }
    if (length > MAX_BYTES) throw new RangeError(`a ${length}-byte string is too long for a string table`);
    this.keyLength = length;
    this.keyHash = hashBytes(key, 0, length);
    this.keyValue = value;
    return this.keyHash;
  }

  /** The slot holding the entry equal to `key`, or the empty slot where it would go. */
  private probe(hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === EMPTY || (this.hashes[entry] === hash && this.holdsKey(entry))) return slot;
    }
  }

  private holdsKey(entry: number): boolean {
    const length = this.keyLength;
    if (this.lengths[entry] !== length) return false;
    const start = this.starts[entry]!;
    for (let i = 0; i < length; i++) if (this.bytes[start + i] !== this.key[i]) return false;
    return true;
  }

  /** Copies `key` into a released entry of its length, or a new one. */
  private store(hash: number): number {
    const length = this.keyLength;
    let entry = this.released.get(length)?.pop();
    if (entry === undefined) {
      entry = this.entries++;
      if (entry >= this.starts.length) {
        const capacity = capacityFor(this.starts.length, this.entries);
        this.starts = resized(this.starts, capacity);
        this.lengths = resized(this.lengths, capacity);
        this.holders = resized(this.holders, capacity);
        this.hashes = resized(this.hashes, capacity);
      }
      this.bytes = grown(this.bytes, this.bytesUsed + length);
      this.starts[entry] = this.bytesUsed;
      this.lengths[entry] = length;
      this.bytesUsed += length;
    }
    this.bytes.set(this.key.subarray(0, length), this.starts[entry]!);
    this.hashes[entry] = hash;
    return entry;
  }

  /** Removes a freed entry from the slots, moving later entries of its run back (no tombstones). */
  private unlink(entry: number): void {
    const mask = this.slots.length - 1;
    let hole = this.hashes[entry]! & mask;
    while (this.slots[hole] !== entry) hole = (hole + 1) & mask;
    for (let slot = (hole + 1) & mask; this.slots[slot] !== EMPTY; slot = (slot + 1) & mask) {
      const moved = this.slots[slot]!;
      const home = this.hashes[moved]! & mask;
      // `moved` may fill the hole only if its home is not within (hole, slot], cyclically.
      const between = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
      if (between) continue;
      this.slots[hole] = moved;
      hole = slot;
    }
    this.slots[hole] = EMPTY;
  }

  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (const entry of old) {
      if (entry === EMPTY) continue;
      let slot = this.hashes[entry]! & mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.slots[slot] = entry;
    }
  }
}

/** FNV-1a with a final mix, so that strings differing only at their end spread over the low bits too. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}
