import { parse as parseQueryString } from 'node:querystring';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance, preParsingHookHandler, preValidationHookHandler } from 'fastify';
import { ApiError, invalidField } from '../errors.ts';
import {
  DuplicateKeyError,
  JsonSyntaxError,
  parseJsonKeepingNumberText,
  REQUEST_MAX_JSON_VALUES,
  TooManyJsonValuesError,
} from '../json/lossless-parse.ts';
import { addRouteHook, takesBody } from './route-hooks.ts';

/** The most fields a form (urlencoded or multipart) body may carry; the widest route takes about 15. */
export const MAX_FORM_FIELDS = 64;
/** Files in one multipart body (a keystore may be uploaded as one). */
export const MAX_FORM_FILES = 2;

/**
 * JSON (numbers keep their text when a double would round them), urlencoded and multipart bodies, each
 * bounded in size (the route's `bodyLimit`, at most `bodyLimit` here: body-limits.ts), in field count and,
 * for JSON, in values. Bodies are parsed only after the token is checked (request-context answers 401 in
 * onRequest, before any parsing), so an anonymous request costs no parsing, except on the public sign-in
 * routes, whose limit is a few KiB.
 */
export async function registerBodyParsers(app: FastifyInstance, bodyLimit: number): Promise<void> {
  // Only the three encodings the API documents; anything else is a 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, parseJsonKeepingNumberText(text));
    } catch (error) {
      done(bodyError(error), undefined);
    }
  });
  await app.register(formbody, { bodyLimit, parser: parseForm });
  // Fields arrive as plain values beside each other, like the other two encodings; files as Buffers.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: {
      fileSize: bodyLimit,
      files: MAX_FORM_FILES,
      fields: MAX_FORM_FIELDS,
      parts: MAX_FORM_FIELDS + MAX_FORM_FILES,
      fieldSize: bodyLimit,
    },
  });
  // No body at all (`curl -X POST …` with no data and no content type) is an empty object: a route whose
  // fields are all optional runs on its defaults, and one with required fields names each missing one.
  const emptyBodyIsObject: preValidationHookHandler = (request, _reply, done) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  // The multipart parser reads the socket itself, past Fastify's body limit: bound it by the declared
  // length, which Node's HTTP parser holds the body to.
  const boundMultipartLength: preParsingHookHandler = (request, _reply, payload, done) => {
    if (!/^multipart\//i.test(request.headers['content-type'] ?? '')) return done(null, payload);
    const declared = request.headers['content-length'];
    if (declared === undefined)
      return done(new ApiError(411, 'A multipart body needs a Content-Length header'));
    if (Number(declared) > request.routeOptions.bodyLimit)
      return done(new ApiError(413, 'Request body is too large'));
    done(null, payload);
  };
  // Both only on the routes they concern: a GET is never parsed, and has no body schema.
  app.addHook('onRoute', (route) => {
    if (isObjectSchema(route.schema?.body)) addRouteHook(route, 'preValidation', emptyBodyIsObject);
    if (takesBody(route)) addRouteHook(route, 'preParsing', boundMultipartLength);
  });
}

function isObjectSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && 'type' in schema && schema.type === 'object';
}

function bodyError(error: unknown): ApiError {
  if (error instanceof TooManyJsonValuesError) {
    return new ApiError(413, `A JSON body may hold at most ${REQUEST_MAX_JSON_VALUES} values`);
  }
  if (error instanceof DuplicateKeyError) {
    const field = /^[A-Za-z0-9_.-]{1,64}$/.test(error.key) ? error.key : 'body';
    return invalidField(field, `The ${field} field is given more than once.`);
  }
  return new ApiError(400, error instanceof JsonSyntaxError ? error.message : 'Malformed JSON body');
}

/** Counts the fields before parsing, so a body of a million empty fields is refused without building them. */
function parseForm(text: string): Record<string, unknown> {
  let fields = 1;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    if (++fields > MAX_FORM_FIELDS)
      throw new ApiError(413, `A form body may carry at most ${MAX_FORM_FIELDS} fields`);
  }
  return parseQueryString(text);
}
