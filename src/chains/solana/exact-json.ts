/**
 * Node JSON made ready for an answer: integers the node wrote beyond 2^53 (lamports, token amounts,
 * rentEpoch), which the exact parser keeps as bigint, become their decimal text, so no digit is lost.
 */
export function exactJson(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(exactJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exactJson(item)]));
  }
  return value;
}
