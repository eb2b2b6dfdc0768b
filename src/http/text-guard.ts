import type { FastifyInstance } from 'fastify';
import { invalidField } from '../errors.ts';

/**
 * No text field may hold a NUL character: no field has a use for one, Postgres cannot store one in a text
 * column, and a log or a receiver's parser may cut the text there. Checked before validation, on every
 * part of the request.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  // A callback: a request without NUL (all but an attack) passes on without a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const field =
      fieldWithNul(request.params, '') ?? fieldWithNul(request.query, '') ?? fieldWithNul(request.body, '');
    if (field === null) done();
    else done(invalidField(field, `The ${field} field must not contain NUL characters.`));
  });
}

function fieldWithNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : null;
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    const name = /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : '?';
    const found = key.includes('\u0000')
      ? path || 'body'
      : fieldWithNul(item, path ? `${path}.${name}` : name);
    if (found !== null) return found;
  }
  return null;
}
