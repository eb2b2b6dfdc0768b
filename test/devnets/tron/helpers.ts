import { expect } from 'vitest';
import { stringifyJson } from '../../../devnets/tron/json.ts';

/** POSTs a java-tron style request; every answer, errors included, must be HTTP 200. */
export async function post<T = Record<string, unknown>>(
  base: string,
  path: string,
  body: unknown = {},
): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', body: stringifyJson(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

export const utf8Hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
export const fromHex = (h: string) => Buffer.from(h, 'hex').toString('utf8');

/** A 32-byte ABI word holding an address (TronWeb writes the 41-prefixed form; the EVM reads 20 bytes). */
export const addressWord = (hex41: string) => hex41.slice(2).padStart(64, '0');
export const uintWord = (n: bigint) => n.toString(16).padStart(64, '0');
