import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { JsonSyntaxError, parseJsonKeepingNumberText } from './json-body.ts';

/** JSON (numbers keep their text when a double would round them), urlencoded and multipart bodies. */
export async function registerBodyParsers(app: FastifyInstance, bodyLimit: number): Promise<void> {
  // Only the three encodings the API documents; anything else is a 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, parseJsonKeepingNumberText(text));
    } catch (error) {
      const message = error instanceof JsonSyntaxError ? error.message : 'Malformed JSON body';
      done(new ApiError(400, message), undefined);
    }
  });
  await app.register(formbody, { bodyLimit });
  // Fields arrive as plain values beside each other, like the other two encodings; files as Buffers.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: bodyLimit, files: 4, fields: 200, parts: 220, fieldSize: bodyLimit },
  });
}
