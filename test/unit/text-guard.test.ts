import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { refuseNulCharacters } from '../../src/http/text-guard.ts';

/** A route that answers what it was sent, behind the NUL guard; a refusal answers the field it named. */
async function guarded() {
  const app = Fastify();
  refuseNulCharacters(app);
  app.setErrorHandler((error, _request, reply) => {
    const message = error instanceof ApiError ? error.errors[0]?.message : String(error);
    reply.code(422).send({ message });
  });
  app.post('/echo/:id', async () => ({ ok: true }));
  app.get('/search', { schema: { querystring: { type: 'object' } } }, async () => ({ ok: true }));
  app.get('/overview', async () => ({ ok: true }));
  await app.ready();
  return app;
}

async function namedField(
  payload: unknown,
  url = '/echo/1',
  method: 'GET' | 'POST' = 'POST',
): Promise<string> {
  const app = await guarded();
  const res = await app.inject({ method, url, ...(method === 'POST' ? { payload: payload as object } : {}) });
  await app.close();
  if (res.statusCode === 200) return '(accepted)';
  return String((res.json() as { message: string }).message);
}

describe('the NUL guard', () => {
  it('names where the NUL is, however deep, and accepts a clean request', async () => {
    expect(await namedField({ a: { b: 'ok' }, list: ['x', 'y'] })).toBe('(accepted)');
    expect(await namedField({ url: 'a\u0000b' })).toBe('The url field must not contain NUL characters.');
    expect(await namedField({ a: { b: 'x\u0000' } })).toBe('The a.b field must not contain NUL characters.');
    expect(await namedField({ list: ['x', 'y\u0000'] })).toBe(
      'The list.1 field must not contain NUL characters.',
    );
    expect(await namedField({ 'bad key!': { c: '\u0000' } })).toBe(
      'The ?.c field must not contain NUL characters.',
    );
  });

  it('names the object holding a key with a NUL, and the body for a NUL at the top', async () => {
    expect(await namedField({ a: { 'k\u0000': 1 } })).toBe('The a field must not contain NUL characters.');
    expect(await namedField({ 'k\u0000': 1 })).toBe('The body field must not contain NUL characters.');
    expect(await namedField({}, '/echo/a%00b')).toBe('The id field must not contain NUL characters.');
  });

  it('guards the query of a route that describes one, and passes over a route that reads no text', async () => {
    expect(await namedField(null, '/search?q=a%00b', 'GET')).toBe(
      'The q field must not contain NUL characters.',
    );
    // Its query is never read: nothing there can reach a column, a log or a receiver.
    expect(await namedField(null, '/overview?q=a%00b', 'GET')).toBe('(accepted)');
  });
});
