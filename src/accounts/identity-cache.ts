/** How long an identity read from the database answers requests before it is read again. */
export const IDENTITY_CACHE_MS = 1_000;
/** Entries held at most: past it, the expired ones go, and if none had, all of them (a flood of tokens). */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  until: number;
}

/**
 * Identities (a token's or a session's user with their plan) kept for a short time, so an authenticated
 * request costs no query. A change to accounts (a token revoked, a plan changed, sessions ended) empties
 * it at once in this process (`clear`), and other instances are told through the database
 * (account-changes.ts); whatever is missed ages out within `ttlMs`. A read begun before a `clear` is not
 * kept after it: `generation` is taken before the read and handed to `set`.
 */
export class IdentityCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  #generation = 0;

  constructor(
    private readonly ttlMs = IDENTITY_CACHE_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get generation(): number {
    return this.#generation;
  }

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, generation: number): void {
    if (generation !== this.#generation || this.ttlMs <= 0) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#sweep();
    this.#entries.set(key, { value, until: this.clock() + this.ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }

  #sweep(): void {
    const now = this.clock();
    for (const [key, entry] of this.#entries) if (entry.until <= now) this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
  }
}
