import { JsonNumber } from './json-text.ts';

/**
 * Node JSON made ready to pass on: the integers the node wrote beyond 2^53 (lamports, int64 balances and
 * amounts), which the exact parser keeps as bigint, become `JsonNumber`s, so the answer writes them as
 * the node did, numbers with every digit (http/exact-numbers.ts), not rounded doubles nor strings.
 */
export function passedOnNodeJson(value: unknown): unknown {
  if (typeof value === 'bigint') return new JsonNumber(value.toString());
  if (Array.isArray(value)) return value.map(passedOnNodeJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, passedOnNodeJson(item)]));
  }
  return value;
}

/** Whether a value holds a `JsonNumber` anywhere, which only the exact writer can write. */
export function holdsJsonNumber(value: unknown): boolean {
  if (value instanceof JsonNumber) return true;
  if (Array.isArray(value)) return value.some(holdsJsonNumber);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsJsonNumber);
  return false;
}
