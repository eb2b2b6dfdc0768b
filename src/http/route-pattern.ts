import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The route's pattern once read by routePatternOf ('' for no route); null until then. */
    routePattern: string | null;
  }
}

export function decorateRoutePattern(app: FastifyInstance): void {
  app.decorateRequest('routePattern', null);
}

/**
 * The pattern of the route a request matched (`/api/v2/:chain/webhooks/:id`), or undefined for none; read
 * once per request, for the metrics and the request line both: Fastify builds `request.routeOptions` anew
 * on every read.
 */
export function routePatternOf(request: FastifyRequest): string | undefined {
  request.routePattern ??= request.routeOptions.url ?? '';
  return request.routePattern === '' ? undefined : request.routePattern;
}
