import type { FastifyInstance, preValidationHookHandler, RouteOptions } from 'fastify';
import { invalidField } from '../errors.ts';
import { addRouteHook, takesBody } from './route-hooks.ts';

/**
 * No text field may hold a NUL character: no field has a use for one, Postgres cannot store one in a text
 * column, and a log or a receiver's parser may cut the text there. Checked before validation, on every
 * part of the request.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  // A callback: a request without NUL (all but an attack) passes on without a promise.
  const refuseNul: preValidationHookHandler = (request, _reply, done) => {
    const field = fieldWithNul(request.params) ?? fieldWithNul(request.query) ?? fieldWithNul(request.body);
    if (field === null) done();
    else {
      const name = field || 'body';
      done(invalidField(name, `The ${name} field must not contain NUL characters.`));
    }
  };
  // Only routes that read text from the request: a route without path parameters, query or body pays nothing.
  app.addHook('onRoute', (route) => {
    if (readsText(route)) addRouteHook(route, 'preValidation', refuseNul);
  });
}

/** Whether a route takes text from the request: path parameters, a query it describes, or a body. */
function readsText(route: RouteOptions): boolean {
  return (
    route.url.includes(':') ||
    route.url.includes('*') ||
    route.schema?.querystring !== undefined ||
    takesBody(route)
  );
}

/**
 * Where a NUL is, as a dotted path below `value` ('' for `value` itself, or the object whose key holds
 * it), or null. The path is built only on the way back from a find: a clean request (all but an attack)
 * costs a walk, no strings.
 */
function fieldWithNul(value: unknown): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? '' : null;
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return null;
  for (const key of Object.keys(value)) {
    if (key.includes('\u0000')) return '';
    const below = fieldWithNul(Reflect.get(value, key));
    if (below !== null) return below === '' ? nameOf(key) : `${nameOf(key)}.${below}`;
  }
  return null;
}

/** A key as an error may name it: anything else a client sent is shown as `?`. */
function nameOf(key: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : '?';
}
