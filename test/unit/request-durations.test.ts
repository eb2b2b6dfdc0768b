import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from '../../src/http/request-durations.ts';

/** Answers of several routes and statuses, with durations on, between and past the bucket bounds. */
const ANSWERS: [method: string, route: string, status: number, seconds: number][] = [
  ['GET', '/api/account', 200, 0.0004],
  ['GET', '/api/account', 200, 0.005],
  ['GET', '/api/account', 200, 0.0051],
  ['POST', '/api/v2/:chain/transactions', 422, 0.3],
  ['GET', '/api/account', 429, 12],
  ['GET', 'unmatched', 404, 0.01],
  ['POST', '/api/v2/:chain/transactions', 422, 2.5],
  ['GET', '/api/account', 200, 1],
];

/** prom-client's JSON with its empty exemplar fields (the gateway records none) left out. */
function withoutExemplars(metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) {
  return metrics.map((metric) => ({
    ...metric,
    values: metric.values.map((value) => {
      const { exemplar: _, ...rest } = { exemplar: undefined, ...value };
      return rest;
    }),
  }));
}

describe('request durations', () => {
  it('read exactly as prom-client’s own histogram of the same answers, in both forms', async () => {
    const theirs = new Registry();
    const reference = new Histogram({
      name: 'switchyard_http_request_duration_seconds',
      help: 'HTTP request duration by method, route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [theirs],
    });
    const ours = new Registry();
    const durations = new RequestDurations(ours);
    for (const [method, route, status, seconds] of ANSWERS) {
      reference.observe({ method, route, status: String(status) }, seconds);
      durations.record(method, route, status, seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
    durations.reset();
    reference.reset();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
