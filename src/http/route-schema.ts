import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { Envelope, ErrorEnvelope } from './envelope.ts';
import { exampleOf } from './schema-example.ts';

export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
  /** Schema of `data` in the success envelope. */
  data: TSchema;
  /** The whole success body, when it is not the plain envelope around `data` (pages). */
  successBody?: TSchema;
  /** Success status; 200 unless the route creates something. */
  status?: number;
  /** The success envelope's `message`, as the handler sends it (shown in the example). */
  message?: string;
  /**
   * Error statuses this route answers beyond those every route of its kind answers (422 for input; 401,
   * 402, 429 for authenticated routes; 404 for a `{chain}` in the path; 400, 411, 413, 415 for methods
   * that carry a body, added by `documentBodyStatuses`).
   */
  errors?: number[];
  /** Error bodies other than the plain error envelope, by status (an error that carries data too). */
  errorBodies?: Record<number, TSchema>;
  /** What a status means on this route, in place of its general description. */
  because?: Partial<Record<number, string>>;
  /** No token needed, no quota used, no network header read. */
  public?: boolean;
  /** Answers while the caller's plan has lapsed (no 402); the route sets `config.whileLapsed` too. */
  whileLapsed?: boolean;
  /** Only a dashboard session may call it (403 with a token); the route sets `config.sessionOnly` too. */
  sessionOnly?: boolean;
}

/** What each error status means on any route, with the message it carries. */
const ERRORS: Record<
  number,
  { description: string; message: string; errors?: { field: string; message: string }[] }
> = {
  400: {
    description: 'The body does not parse (broken JSON, form or multipart)',
    message: 'Malformed request',
  },
  401: { description: 'The token is missing or unknown', message: 'Unauthenticated.' },
  402: {
    description: "The account's plan has lapsed",
    message:
      'Your starter plan expired on 2025-01-31. Renew it to use the API again; GET /api/account shows its status.',
  },
  403: {
    description:
      "A change made with the dashboard's session cookie but without its CSRF token in X-CSRF-Token; on a route only a session may call, an API token",
    message: 'Missing or wrong CSRF token',
  },
  404: {
    description: 'The chain is not served (`Unsupported blockchain`), or what the path names does not exist',
    message: 'Unsupported blockchain',
  },
  413: {
    description: "The body is over the route's size limit, or a JSON body holds more than 4,096 values",
    message: 'Request body is too large',
  },
  415: {
    description: 'The body is neither JSON, form-urlencoded nor multipart/form-data',
    message: 'Unsupported content type: send application/json, form-urlencoded or multipart/form-data',
  },
  422: {
    description: 'Data validation failed: one item per offending field',
    message: 'Data validation failed',
    errors: [{ field: 'to', message: 'The to field is required.' }],
  },
  429: {
    description:
      "Over the plan's rate limit for this token (`Too many requests: …`), or the request quota is used up (`Your request limit exceeded. Please upgrade your plan`); `Retry-After` says when to come back",
    message: 'Too many requests: 50 per second for this token; retry in 1 s',
  },
  502: {
    description: "The chain's node refused the request",
    message: 'tron mainnet node refused the request',
  },
  503: {
    description:
      'No node of this chain and network is reachable (`… node unavailable, try again later`), or the database is not (`Database unavailable, try again later`, with `Retry-After`)',
    message: 'tron mainnet node unavailable, try again later',
  },
};

/**
 * The headers of an authenticated 429 (IETF draft "RateLimit header fields for HTTP", three-header form).
 * Every authenticated answer carries the RateLimit-* ones when the caller's plan has a rate.
 */
const RATE_LIMIT_HEADERS = {
  'Retry-After': Type.String({ description: 'Whole seconds until a request is allowed again' }),
  'RateLimit-Limit': Type.String({ description: "The plan's requests per window for this token" }),
  'RateLimit-Remaining': Type.String({ description: 'Requests this token may still make right now' }),
  'RateLimit-Reset': Type.String({ description: "Whole seconds until this token's full budget is back" }),
};

/** What any request whose method carries a body may be answered, whether or not the route reads one. */
const BODY_STATUSES = [400, 411, 413, 415];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const NetworkHeader = Type.Object({
  'x-network': Type.Optional(
    Type.String({ description: '`testnet` or `mainnet` (any case); default mainnet. Any other value: 422.' }),
  ),
});

/** The statuses a route answers: its success, what every route of its kind answers, and its own. */
function statusesOf(doc: RouteDoc): number[] {
  const hasInput = doc.body !== undefined || doc.querystring !== undefined || doc.params !== undefined;
  const authenticated = doc.public
    ? []
    : [401, 429, 503, ...(doc.whileLapsed ? [] : [402]), ...(doc.sessionOnly ? [403] : [])];
  const chainInPath = doc.params !== undefined && 'chain' in (doc.params['properties'] ?? {});
  return [
    ...new Set([
      ...(hasInput || !doc.public ? [422] : []),
      ...authenticated,
      ...(chainInPath ? [404] : []),
      ...(doc.errors ?? []),
    ]),
  ].sort((a, b) => a - b);
}

/** An error status's documented answer: what it means here, its envelope, headers and an example message. */
export function errorResponse(
  status: number,
  because: string | undefined,
  body: TSchema = ErrorEnvelope,
  { exampleMessage, headers }: { exampleMessage?: string; headers?: Record<string, TSchema> } = {},
): TSchema {
  const known = ERRORS[status];
  const message = exampleMessage ?? known?.message ?? 'Error';
  const { $id: _shared, ...envelope } = body;
  return {
    ...envelope,
    ...(headers === undefined ? {} : { headers }),
    description: because ?? known?.description ?? 'Error',
    examples: [{ status, ok: false, message, errors: known?.errors ?? [] }],
  };
}

/**
 * The documented answer of an error status a route does not describe its own way: one object per status
 * that every route shares (read only: Fastify, the serializers and the OpenAPI document copy what they
 * change), where a copy per route held megabytes across the thousands of routes of every chain.
 */
const standardErrors = new Map<string, TSchema>();

function standardErrorResponse(status: number, headers: typeof RATE_LIMIT_HEADERS | undefined): TSchema {
  const key = `${status}${headers === undefined ? '' : ' with rate limit headers'}`;
  let response = standardErrors.get(key);
  if (response === undefined) {
    response = errorResponse(status, undefined, undefined, { headers });
    standardErrors.set(key, response);
  }
  return response;
}

function successResponse(doc: RouteDoc, status: number): TSchema {
  const body = doc.successBody ?? Envelope(doc.data);
  const example = exampleOf(body);
  const message = doc.message ?? (status === 201 ? 'Created' : 'OK');
  return {
    ...body,
    description: doc.because?.[status] ?? message,
    examples: [{ ...(typeof example === 'object' ? example : {}), status, ok: true, message }],
  };
}

/** A route's Fastify schema, its input schemas typed as the route declared them. */
export interface RouteSchema<Doc extends RouteDoc> {
  summary: string;
  description?: string;
  tags: string[];
  headers?: TSchema;
  security?: Record<string, string[]>[];
  /** Absent where the route takes none (see `withoutAbsentParts`). */
  body: Doc['body'];
  querystring: Doc['querystring'];
  params: Doc['params'];
  response: Record<number, TSchema>;
}

function securityOf(doc: RouteDoc): Record<string, string[]>[] {
  return doc.sessionOnly ? [{ sessionCookie: [] }] : [{ bearerAuth: [] }, { sessionCookie: [] }];
}

/** One place that turns a route's description into its Fastify schema: validation, serialization, OpenAPI. */
export function routeSchema<const Doc extends RouteDoc>(doc: Doc): RouteSchema<Doc> {
  const success = doc.status ?? 200;
  const response: Record<number, TSchema> = { [success]: successResponse(doc, success) };
  for (const status of statusesOf(doc)) {
    const headers = status === 429 && !doc.public ? RATE_LIMIT_HEADERS : undefined;
    const because = doc.because?.[status];
    const body = doc.errorBodies?.[status];
    response[status] =
      because === undefined && body === undefined
        ? standardErrorResponse(status, headers)
        : errorResponse(status, because, body, { headers });
  }
  return withoutAbsentParts({
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    tags: doc.tags,
    ...(doc.public ? {} : { headers: NetworkHeader, security: securityOf(doc) }),
    body: doc.body,
    querystring: doc.querystring,
    params: doc.params,
    response,
  });
}

/**
 * The input parts keep their declared types for the type provider, but a part the route does not take
 * must be missing, not undefined: Fastify warns (FSTWRN001) for every key present without a schema.
 */
function withoutAbsentParts<Doc extends RouteDoc>(schema: RouteSchema<Doc>): RouteSchema<Doc> {
  for (const part of ['body', 'querystring', 'params'] as const) {
    if (schema[part] === undefined) Reflect.deleteProperty(schema, part);
  }
  return schema;
}

/**
 * A route whose method carries a body can be answered for that body (it does not parse, has no length, is
 * too large, is of another type) before its handler runs, even when it reads none: adds those statuses,
 * and 403 when the route is authenticated (a session's change without its CSRF token).
 */
export function documentBodyStatuses(method: string | string[], schema: FastifySchema | undefined): void {
  const methods = Array.isArray(method) ? method : [method];
  const response = schema?.response;
  if (!methods.some((m) => BODY_METHODS.has(m)) || typeof response !== 'object' || response === null) return;
  // An authenticated change may also meet the dashboard's CSRF check.
  const statuses = schema?.security === undefined ? BODY_STATUSES : [...BODY_STATUSES, 403];
  for (const status of statuses) {
    if (!(status in response))
      Object.assign(response, { [status]: standardErrorResponse(status, undefined) });
  }
}
