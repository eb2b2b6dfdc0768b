import { expect } from 'vitest';

export interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC call; every answer, errors included, must be HTTP 200. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as RpcAnswer;
}

/** The key paths of a JSON value (arrays: their first element), for shape comparisons. */
export function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.length ? keyPaths(value[0], `${prefix}[]`) : [];
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) out.push(`${prefix}.${k}`, ...keyPaths(v, `${prefix}.${k}`));
  return out.sort();
}
