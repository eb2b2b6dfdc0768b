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
