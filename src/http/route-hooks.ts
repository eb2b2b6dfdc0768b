import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preParsing' | 'preValidation' | 'preHandler' | 'onResponse';

/** Methods whose requests Fastify never reads a body of: their routes need no hook about bodies. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/** Whether a request to this route may carry a body Fastify parses (a method other than GET or HEAD). */
export function takesBody(route: Pick<RouteOptions, 'method'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.some((method) => !BODYLESS.has(method));
}

/**
 * Adds a hook to one route, from an `onRoute` hook: a hook only some routes need costs the others nothing,
 * where a global one runs (and, async, allocates a promise) on every request. A route's own hooks run
 * after the global ones of the same kind, in the order they were added.
 */
export function addRouteHook<K extends HookName>(
  route: RouteOptions,
  name: K,
  hook: NonNullable<RouteOptions[K]> extends (infer H)[] | infer H ? H : never,
): void {
  const existing = route[name];
  const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  Object.assign(route, { [name]: [...hooks, hook] });
}

/**
 * Work done once an answer is sent, returning a promise only when it has to wait: app.ts runs each module's
 * in one onResponse hook, where a hook each cost every request a turn through Fastify's hook runner.
 */
export type AfterAnswer = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;
