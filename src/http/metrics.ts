import { collectDefaultMetrics, Registry } from 'prom-client';
import { RequestDurations } from './request-durations.ts';
import type { AfterAnswer } from './route-hooks.ts';
import { routePatternOf } from './route-pattern.ts';

/** A metrics registry per process role; other modules add their own metrics to it. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Records each answer's duration, by method, route pattern and status (request-durations.ts). */
export function requestDurationRecorder(registry: Registry): AfterAnswer {
  const durations = new RequestDurations(registry);
  return (request, reply) => {
    durations.record(
      request.method,
      routePatternOf(request) ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    return undefined;
  };
}
