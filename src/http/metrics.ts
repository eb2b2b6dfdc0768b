import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** A metrics registry per process role; other modules add their own metrics to it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Request duration by route pattern (never the raw URL, which would explode the label set). */
export function instrumentRequests(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One series per method, route and status, looked up by a string rather than by hashing the labels.
  const series = new Map<string, { observe(seconds: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let observer = series.get(key);
    if (observer === undefined) {
      observer = duration.labels({ method: request.method, route, status: String(reply.statusCode) });
      series.set(key, observer);
    }
    observer.observe(reply.elapsedTime / 1000);
    done();
  });
}
