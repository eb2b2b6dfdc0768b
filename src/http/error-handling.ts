import http from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerHookHandler,
} from 'fastify';
import FindMyWay from 'find-my-way';
import { NodeError, NodeUnavailableError } from '../chains/node-client.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../chains/registry.ts';
import { ApiError, type FieldError, VALIDATION_FAILED } from '../errors.ts';
import { nodeCallsKey, type TroubleLog } from '../health/trouble-log.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { type AfterAnswer, addRouteHook, takesBody } from './route-hooks.ts';

/** Path groups under /api/v2 that are not a blockchain name. */
const CHAIN_AGNOSTIC_GROUPS = new Set(['webhooks', 'prices']);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods a 405's `Allow` can name: the only ones the route index needs. */
function isIndexedMethod(method: string): method is (typeof METHODS)[number] {
  return (METHODS as readonly string[]).includes(method);
}

/** Status for Fastify's and its plugins' own request errors, where their statusCode is not enough. */
const STATUS_BY_CODE: Record<string, number> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_REQ_FILE_TOO_LARGE: 413,
  FST_PARTS_LIMIT: 413,
  FST_FILES_LIMIT: 413,
  FST_FIELDS_LIMIT: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_INVALID_MULTIPART_CONTENT_TYPE: 415,
};

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function errorBody(status: number, message: string, errors: FieldError[] = []) {
  return { status, ok: false as const, message, errors };
}

/**
 * Renders every failure in the error envelope: ApiErrors as they are, validation as 422 with one item per
 * field, Fastify's request errors with their status, wrong methods as 405, unknown chains as 404, and
 * anything unexpected as a 500 that reveals nothing (the cause is logged). Returns the answer to an
 * unknown route, which app.ts gives before the body is read, and the note of a database outage's end,
 * which it runs after each answer.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  supportsChain: (chain: string) => boolean,
  troubleLog: TroubleLog,
): {
  answerUnknownRoute: (request: FastifyRequest, reply: FastifyReply) => void;
  noteDatabaseBack: AfterAnswer;
} {
  // A method-agnostic index of every route, to tell "wrong method" (405) from "no such path" (404).
  const routes = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods.filter(isIndexedMethod)) {
      if (route.url.includes('*')) continue;
      try {
        routes.on(method, route.url, () => {});
      } catch {
        // Same path registered twice (e.g. HEAD beside GET): one entry is enough.
      }
    }
  });

  app.decorateRequest('bodyParsed', false);
  // Only where a body is parsed: a GET has none whose errors need telling apart.
  const markBodyParsed: preHandlerHookHandler = (request, _reply, done) => {
    request.bodyParsed = true;
    done();
  };
  app.addHook('onRoute', (route) => {
    if (takesBody(route)) addRouteHook(route, 'preHandler', markBodyParsed);
  });

  /** 404 for an unknown path or chain, 405 (with Allow) for a known path asked with another method. */
  const answerUnknownRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && routes.find(m, path) !== null);
    const chain = /^\/api\/v2\/([^/]+)/.exec(path)?.[1];
    if (chain !== undefined && !CHAIN_AGNOSTIC_GROUPS.has(chain) && !supportsChain(chain)) {
      return reply.code(404).send(errorBody(404, UNSUPPORTED_BLOCKCHAIN));
    }
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return reply.code(405).send(errorBody(405, `Method ${request.method} is not allowed here`));
    }
    return reply.code(404).send(errorBody(404, 'Not found'));
  };
  app.setNotFoundHandler(answerUnknownRoute);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      reply.headers(error.headers);
      return reply.code(error.status).send(errorBody(error.status, error.message, error.errors));
    }
    if (error instanceof NodeError) {
      // The detail (endpoint hosts, node bodies) is for the operator's log, not the caller. A node that is
      // down is one warning until it answers again, not one per request.
      const fields = { chain: error.chain, network: error.network };
      if (error instanceof NodeUnavailableError) {
        troubleLog.failed(
          nodeCallsKey(error.chain, error.network),
          request.log,
          fields,
          error,
          'node call failed',
        );
      } else {
        request.log.warn({ err: error }, 'node call failed');
      }
      const status = error instanceof NodeUnavailableError ? 503 : 502;
      const message =
        status === 503
          ? `${error.chain} ${error.network} node unavailable, try again later`
          : `${error.chain} ${error.network} node refused the request`;
      return reply.code(status).send(errorBody(status, message));
    }
    if (isDatabaseUnavailable(error)) {
      troubleLog.failed(DATABASE_TROUBLE, request.log, {}, error, 'database unavailable');
      reply.header('Retry-After', '1');
      return reply.code(503).send(errorBody(503, DATABASE_UNAVAILABLE));
    }
    if (error.validation) {
      const errors = fieldErrors(error.validation as AjvError[], error.validationContext);
      return reply.code(422).send(errorBody(422, VALIDATION_FAILED, errors));
    }
    // The multipart parser throws bare errors on broken input; before the handler runs, they are the body's fault.
    const brokenMultipart = !request.bodyParsed && request.isMultipart() && error.statusCode === undefined;
    const status = brokenMultipart ? 400 : (STATUS_BY_CODE[error.code] ?? error.statusCode ?? 500);
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(status, requestErrorMessage(status)));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(500, 'Internal server error'));
  });
  // A database outage is one warning when it starts and one line when a request succeeds again.
  const noteDatabaseBack: AfterAnswer = (request, reply) => {
    if (reply.statusCode < 500 && troubleLog.isFailing(DATABASE_TROUBLE)) {
      troubleLog.recovered(DATABASE_TROUBLE, request.log, {}, 'database available again');
    }
    return undefined;
  };
  return { answerUnknownRoute, noteDatabaseBack };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** True once the body is parsed and validated (the handler is about to run). */
    bodyParsed: boolean;
  }
}

const DATABASE_TROUBLE = 'database';
const DATABASE_UNAVAILABLE = 'Database unavailable, try again later';

/** Fixed texts: Fastify's and its plugins' messages may quote the request (its path, its content type). */
const REQUEST_ERROR_MESSAGES: Record<number, string> = {
  400: 'Malformed request',
  406: 'Malformed multipart body',
  408: 'The request took too long to arrive',
  411: 'A Content-Length header is required',
  413: 'Request body is too large',
  414: 'A path segment is too long',
  415: 'Unsupported content type: send application/json, form-urlencoded or multipart/form-data',
  431: 'Request headers are too large',
};

function requestErrorMessage(status: number): string {
  return REQUEST_ERROR_MESSAGES[status] ?? http.STATUS_CODES[status] ?? 'Bad request';
}

/**
 * Errors Fastify raises before a route is found (a path that is not valid percent-encoding, a path segment
 * over maxParamLength), answered in the envelope like every other error.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // Refused before any hook runs: the request id is set here.
  reply.header('X-Request-Id', request.id);
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  const message =
    error.code === 'FST_ERR_BAD_URL'
      ? 'Malformed URL: invalid percent-encoding'
      : requestErrorMessage(status);
  reply.code(status).send(errorBody(status, message));
}

/**
 * Requests Node's HTTP parser refuses (headers over the size limit, broken framing, a timeout) never reach
 * Fastify: the answer is written to the socket directly, still in the envelope.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(errorBody(status, requestErrorMessage(status)));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** One item per offending field; for alternatives (anyOf) one message, not one per branch. */
function fieldErrors(validation: AjvError[], context: string | undefined): FieldError[] {
  const byField = new Map<string, FieldError>();
  const alternatives = new Set<string>();
  for (const problem of validation) {
    const field = fieldName(problem, context);
    if (problem.keyword === 'anyOf' || problem.keyword === 'oneOf') {
      alternatives.add(field);
      byField.set(field, { field, message: `The ${field} field has an invalid value.` });
    } else if (!byField.has(field) && !alternatives.has(field)) {
      byField.set(field, { field, message: describeProblem(field, problem) });
    }
  }
  return [...byField.values()];
}

function fieldName(problem: AjvError, context: string | undefined): string {
  const segments = problem.instancePath.split('/').filter(Boolean);
  if (problem.keyword === 'required' && typeof problem.params['missingProperty'] === 'string') {
    segments.push(problem.params['missingProperty']);
  }
  const field = segments.join('.');
  return field || context || 'body';
}

function describeProblem(field: string, problem: AjvError): string {
  if (problem.keyword === 'required') return `The ${field} field is required.`;
  if (problem.keyword === 'enum' && Array.isArray(problem.params['allowedValues'])) {
    return `The ${field} field must be one of ${problem.params['allowedValues'].join(', ')}.`;
  }
  return `The ${field} field ${problem.message ?? 'is invalid'}.`;
}
