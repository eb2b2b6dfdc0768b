/**
 * Every answer the API gave during a test file must be documented: its (method, route, status) is read
 * from the gateway's request metrics, and the route's operation in the OpenAPI document must list that
 * status. A route that answers a status it does not document fails the file that made it answer.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

const REQUESTS_METRIC = 'switchyard_http_request_duration_seconds';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

/** `/api/v2/:chain/webhooks/:id` as the document writes it: `/api/v2/{chain}/webhooks/{id}`. */
const openApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Each `METHOD route status` answered so far, for routes the document describes. */
async function answered(metrics: Registry): Promise<{ method: string; route: string; status: string }[]> {
  const metric = metrics.getSingleMetric(REQUESTS_METRIC);
  if (metric === undefined) throw new Error(`the gateway no longer records ${REQUESTS_METRIC}`);
  const { values } = await metric.get();
  return values.flatMap(({ labels }) =>
    typeof labels['method'] === 'string' &&
    typeof labels['route'] === 'string' &&
    labels['status'] !== undefined
      ? [{ method: labels['method'], route: labels['route'], status: String(labels['status']) }]
      : [],
  );
}

/** `METHOD /path status` for every answer whose status the route's operation does not document. */
export async function undocumentedAnswers(app: FastifyInstance, metrics: Registry): Promise<string[]> {
  // The document as a client reads it: JSON, through the same serializer.
  const document: OpenApiDocument = JSON.parse(JSON.stringify(app.swagger()));
  const problems = new Set<string>();
  for (const { method, route, status } of await answered(metrics)) {
    const operation = document.paths[openApiPath(route)]?.[method.toLowerCase()];
    // Routes outside the document (/openapi.json, /docs, HEAD twins of GETs, unmatched paths).
    if (operation === undefined) continue;
    if (operation.responses?.[status] === undefined)
      problems.add(`${method} ${openApiPath(route)} ${status}`);
  }
  return [...problems].sort();
}
