import { Ajv, type ErrorObject, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { compiledOnce, compiledOnFirstUse } from './compiled-once.ts';

/**
 * Request validation that converts only what a person would: form fields and query strings arrive as
 * text, so "25" may become 25 and "true" true. Ajv's own coercion goes further ("0x10" becomes 16,
 * " 1e1" becomes 10, `true` becomes 1), which for an amount or a confirmation count hides a mistake.
 * Each schema is compiled twice: data valid as it is passes the exact validator; otherwise the coercing
 * one runs on it, and every value it changed must have changed in one of the allowed ways.
 */
const BASE: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };

const DECIMAL = /^-?\d{1,80}(\.\d{1,80})?$/;

// One pair per process, each schema compiled once, by the first request it validates (compiled-once.ts).
const exact = new Ajv({ ...BASE, coerceTypes: false });
const coercing = new Ajv({ ...BASE, coerceTypes: true });
const validatorOf = compiledOnce(strictOnFirstUse);

export function strictValidatorCompiler(): FastifySchemaCompiler<object> {
  return ({ schema }) => validatorOf(schema);
}

function strictOnFirstUse(schema: object): ReturnType<FastifySchemaCompiler<object>> {
  const result: { errors: ErrorObject[] | null } = { errors: null };
  const validator = compiledOnFirstUse(() => compileStrict(schema, result));
  // Fastify reads the errors of a failed validation from the function's `errors` property.
  return Object.defineProperty((data: unknown) => validator()(data), 'errors', { get: () => result.errors });
}

/** The exact and the coercing validator of `schema`, the errors of a failed validation left in `result`. */
function compileStrict(schema: object, result: { errors: ErrorObject[] | null }): (data: unknown) => boolean {
  const exactly = exact.compile(schema);
  const withCoercion = coercing.compile(schema);
  return (data: unknown): boolean => {
    result.errors = null;
    if (exactly(data)) return true;
    const original = copyOfValues(data);
    if (!withCoercion(data)) {
      result.errors = withCoercion.errors ?? null;
      return false;
    }
    const path = unsafeConversion(original, data, '');
    if (path === null) return true;
    result.errors = [
      {
        instancePath: path,
        schemaPath: '',
        keyword: 'type',
        params: {},
        message: 'has a value of the wrong type',
      },
    ];
    return false;
  };
}

/**
 * What the coercing validator may change, the values held in objects and arrays, copied so that each
 * change can be checked; anything else (a multipart file's Buffer) is kept as it is. Not structuredClone:
 * it held the loop 100 ms and more on a 16 KiB body of a thousand keys (Node 20 clones through a
 * MessageChannel).
 */
function copyOfValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOfValues);
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return value;
  // Without a prototype: a `__proto__` key (from a form) is a plain property, and the copy is a dictionary
  // from the start (adding a thousand keys one by one to a plain object costs a hidden class each).
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) copy[key] = copyOfValues((value as Record<string, unknown>)[key]);
  return copy;
}

/** The path of the first value the coercing validator changed in a way not allowed; null when none. */
function unsafeConversion(before: unknown, after: unknown, path: string): string | null {
  if (typeof before === 'object' && before !== null && typeof after === 'object' && after !== null) {
    if (Array.isArray(before) !== Array.isArray(after)) return path;
    for (const key of Object.keys(after)) {
      const found = unsafeConversion(
        (before as Record<string, unknown>)[key],
        (after as Record<string, unknown>)[key],
        `${path}/${key}`,
      );
      if (found !== null) return found;
    }
    return null;
  }
  // undefined before: a schema default filled the gap.
  if (before === undefined || before === after || typeof before === typeof after) return null;
  return allowedConversion(before, after) ? null : path;
}

function allowedConversion(before: unknown, after: unknown): boolean {
  if (typeof before === 'string') {
    if (typeof after === 'number') return DECIMAL.test(before);
    if (typeof after === 'boolean') return before === 'true' || before === 'false';
    return after === null && before === '';
  }
  // A JSON number where text is expected (a token id, a gas price) reads the same either way.
  return typeof before === 'number' && typeof after === 'string';
}
