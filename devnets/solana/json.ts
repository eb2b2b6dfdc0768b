// JSON text with exact u64s: bigints are written as bare integers (rentEpoch 18446744073709551615 stays
// exact), as the node writes them; numbers are only used where they are always small.
export type Json = null | boolean | number | string | bigint | Json[] | { [key: string]: Json | undefined };

export function stringifyJson(value: Json | undefined): string {
  if (value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => stringifyJson(v)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// The saved chain's JSON: a bigint is written as {"$bigint":"digits"}, so it comes back a bigint and not a
// float64 (lamports and u64 amounts pass 2^53).
const BIGINT_TAG = '$bigint';

export function stringifyTagged(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? { [BIGINT_TAG]: v.toString() } : v));
}

export function parseTagged(text: string): unknown {
  return JSON.parse(text, (_key, v) => {
    if (isObject(v) && typeof v[BIGINT_TAG] === 'string' && Object.keys(v).length === 1) {
      return BigInt(v[BIGINT_TAG]);
    }
    return v;
  });
}
