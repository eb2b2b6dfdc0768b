import type { FastifyRequest } from 'fastify';

/**
 * The request as one canonical text: its route, path values, query, network and parsed body, with object
 * keys sorted. Two requests that mean the same (the same fields in another order, JSON or a form) give the
 * same text; the bytes of a file part count as they are.
 */
export function canonicalRequest(request: FastifyRequest): string {
  return canonicalJson(requestParts(request));
}

/** What identifies a request: its route, path values, query, network and parsed body. */
export function requestParts(request: FastifyRequest) {
  return {
    method: request.method,
    route: request.routeOptions.url ?? '',
    params: request.params ?? null,
    query: request.query ?? null,
    network: request.network,
    body: request.body ?? null,
  };
}

/** JSON with object keys sorted and absent fields left out; Buffers and bigints tagged. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Buffer.isBuffer(value)) return JSON.stringify({ $bytes: value.toString('base64') });
  if (typeof value === 'bigint') return JSON.stringify({ $bigint: value.toString() });
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
