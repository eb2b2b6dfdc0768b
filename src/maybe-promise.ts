/** A value at hand, or a promise of it: what a hot path answers when it usually has the value in memory. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is at hand, else once it resolves: a request whose every step answers
 * from memory passes without a promise or a turn of the microtask queue.
 */
export function thenOrNow<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
