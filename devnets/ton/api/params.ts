// Reading a request as the indexer does: query parameters, the JSON body's fields, addresses in any form,
// hashes in base64, base64url or hex, BOCs in base64; paging.
import { type Address, Cell } from '@ton/core';
import { parseAnyAddress } from '../messages.ts';
import { ApiError, unprocessable } from './errors.ts';

export function intParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw unprocessable(`failed to parse query parameter ${name}: ${text}`);
  }
  return value;
}

export function sortParam(query: URLSearchParams): 'asc' | 'desc' {
  const sort = query.get('sort') ?? 'desc';
  if (sort !== 'asc' && sort !== 'desc') throw unprocessable(`wrong value for sort parameter: ${sort}`);
  return sort;
}

export function addressParam(text: string | null, required: string): Address {
  if (text === null || text === '') throw new ApiError(401, required);
  const address = parseAnyAddress(text);
  if (!address) throw unprocessable(`failed to parse address: ${text}`);
  return address;
}

/** A 32-byte hash given in base64, base64url or hex, as base64; null when it is none of them. */
export function hashParam(text: string): string | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex').toString('base64');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes.toString('base64');
  }
  return null;
}

export function page<T>(items: T[], query: URLSearchParams, ascending: (a: T, b: T) => number): T[] {
  const limit = intParam(query, 'limit', 10, 1, 1000);
  const offset = intParam(query, 'offset', 0);
  const sorted = [...items].sort(ascending);
  if (sortParam(query) === 'desc') sorted.reverse();
  return sorted.slice(offset, offset + limit);
}

/** The JSON object a POST carried, or an empty one (its fields then read as missing). */
export function requestFields(body: unknown): Record<string, unknown> {
  return isObject(body) ? body : {};
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function cellParam(request: Record<string, unknown>, name: string): Cell | null {
  const value = request[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw unprocessable(`${name} must be a base64 BOC`);
  try {
    return Cell.fromBase64(value);
  } catch {
    throw unprocessable(`failed to parse ${name}`);
  }
}
