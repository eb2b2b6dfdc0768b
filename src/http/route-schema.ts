import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { Envelope, ErrorEnvelope } from './envelope.ts';

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
  /** Error statuses this route documents beyond the common ones (422; 401, 402, 429 for authenticated routes). */
  errors?: number[];
  /** No token needed and no quota used. */
  public?: boolean;
  /** Answers while the caller's plan has lapsed (no 402); the route sets `config.whileLapsed` too. */
  whileLapsed?: boolean;
}

const NetworkHeader = Type.Object({
  'x-network': Type.Optional(
    Type.String({ description: 'testnet or mainnet (any case); default mainnet. Any other value: 422.' }),
  ),
});

/** One place that turns a route's description into its Fastify schema: validation, serialization, OpenAPI. */
export function routeSchema(doc: RouteDoc): FastifySchema {
  const authenticated = doc.public ? [] : [401, 429, ...(doc.whileLapsed ? [] : [402])];
  const errorStatuses = new Set([422, ...authenticated, ...(doc.errors ?? [])]);
  const response: Record<number, TSchema> = { [doc.status ?? 200]: doc.successBody ?? Envelope(doc.data) };
  for (const status of errorStatuses) response[status] = ErrorEnvelope;
  return {
    summary: doc.summary,
    ...(doc.description === undefined ? {} : { description: doc.description }),
    tags: doc.tags,
    headers: NetworkHeader,
    ...(doc.body === undefined ? {} : { body: doc.body }),
    ...(doc.querystring === undefined ? {} : { querystring: doc.querystring }),
    ...(doc.params === undefined ? {} : { params: doc.params }),
    ...(doc.public ? {} : { security: [{ bearerAuth: [] }] }),
    response,
  } as FastifySchema;
}
