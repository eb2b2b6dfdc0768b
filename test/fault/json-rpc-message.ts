/** The JSON-RPC 2.0 messages the fault proxy reads and rewrites. */

export interface JsonRpcCall {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params: unknown[];
}

export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The one call a request body holds; null for a batch or a body that is no call (forwarded untouched). */
export function singleCall(body: string): JsonRpcCall | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { id, method, params } = parsed as Record<string, unknown>;
  if (typeof method !== 'string') return null;
  return {
    jsonrpc: '2.0',
    id: typeof id === 'number' || typeof id === 'string' ? id : null,
    method,
    params: Array.isArray(params) ? params : [],
  };
}

/** An answer body as JSON-RPC, or null when it is not one (then it is passed on as it came). */
export function parseAnswer(text: string): JsonRpcAnswer | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    return parsed as JsonRpcAnswer;
  } catch {
    return null;
  }
}

/**
 * A value of another JSON type than `value`, as a broken node or middlebox sends it: a hex quantity or
 * hash becomes a number, a block or receipt becomes a string, a list becomes an object, null a list.
 */
export function wrongTypeOf(value: unknown): unknown {
  if (typeof value === 'string') return 1234;
  if (Array.isArray(value)) return { unexpected: true };
  if (value === null) return [];
  if (typeof value === 'object') return 'unexpected';
  return null;
}

export function hexQuantity(value: bigint): string {
  return `0x${value.toString(16)}`;
}

/** A 0x quantity as a bigint; null when `value` is not one. */
export function quantityOf(value: unknown): bigint | null {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value) ? BigInt(value) : null;
}
