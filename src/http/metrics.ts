import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { RequestDurations } from './request-durations.ts';
import { routePatternOf } from './route-pattern.ts';

/** A metrics registry per process role; other modules add their own metrics to it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Each answer's duration, by method, route pattern and status (request-durations.ts). */
export function instrumentRequests(app: FastifyInstance, registry: Registry): void {
  const durations = new RequestDurations(registry);
  app.addHook('onResponse', (request, reply, done) => {
    durations.record(
      request.method,
      routePatternOf(request) ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
