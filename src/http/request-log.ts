import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { scrubString } from '../logger.ts';
import { type RequestLineFields, writeRequestLine } from './request-line.ts';
import { routePatternOf } from './route-pattern.ts';

/** An unknown path is logged as it came, cut short: it may be anything a client typed. */
const MAX_LOGGED_PATH = 120;

/**
 * Fastify's request logging, as one `info` line per request written when the answer has been sent (in
 * place of Fastify's `incoming request` and `request completed` pair): method, route pattern, status,
 * duration, request id (bound to every line of the request) and the caller's user id. Never the query
 * string, headers or body, which can carry tokens and passwords.
 */
export class OneLinePerRequest extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      route: routeOf(request),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      userId: request.userId,
    };
    // An error here is the response stream's (the client went away), not the handler's: those have their own line.
    if (error) request.log.warn({ ...fieldsOf(line), err: error }, 'request not answered in full');
    else if (!writeRequestLine(request.log, line)) request.log.info(fieldsOf(line), 'request');
  }
}

/** The line's fields as a log call takes them: no user id on a public route. */
function fieldsOf({ userId, ...rest }: RequestLineFields): Record<string, unknown> {
  return userId ? { ...rest, userId } : rest;
}

/** The route pattern (`/api/v2/tron/addresses/:address`); for an unknown route, the path without its query. */
function routeOf(request: FastifyRequest): string {
  const pattern = routePatternOf(request);
  if (pattern !== undefined) return pattern;
  const path = request.url.split('?')[0] ?? '/';
  return scrubString(path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path);
}
