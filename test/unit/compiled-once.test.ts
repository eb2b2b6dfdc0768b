import { Ajv } from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { cachedSerializerCompiler } from '../../src/http/cached-serializers.ts';
import { compiledOnce, compiledOnFirstUse } from '../../src/http/compiled-once.ts';
import { strictValidatorCompiler } from '../../src/http/strict-validation.ts';

describe('compiledOnce', () => {
  it('compiles a schema once by its text, and another schema anew', () => {
    const compiled: object[] = [];
    const compile = compiledOnce((schema) => {
      compiled.push(schema);
      return { from: schema };
    });
    const first = compile({ type: 'string', maxLength: 8 });
    // Another object with the same text (another gateway's copy of a route's schema) shares the result.
    expect(compile({ type: 'string', maxLength: 8 })).toBe(first);
    expect(compile({ type: 'string', maxLength: 9 })).not.toBe(first);
    expect(compiled).toHaveLength(2);
  });
});

describe('compiledOnFirstUse', () => {
  it('compiles when first asked for, and once', () => {
    const compile = vi.fn(() => ({ compiled: true }));
    const compiled = compiledOnFirstUse(compile);
    expect(compile).not.toHaveBeenCalled();
    expect(compiled()).toBe(compiled());
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it("a route's request validator compiles its schema on the first request, not when the route is added", () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const schema = { type: 'object', properties: { lazily: { type: 'integer', maximum: 7 } } };
    const validate = strictValidatorCompiler()({ schema, method: 'POST', url: '/', httpPart: 'body' });
    expect(compile).not.toHaveBeenCalled();
    expect(validate({ lazily: '8' })).toBe(false);
    expect(validate.errors).toEqual([
      expect.objectContaining({ instancePath: '/lazily', keyword: 'maximum' }),
    ]);
    expect(validate({ lazily: '7' })).toBe(true);
    expect(compile).toHaveBeenCalledTimes(2); // the exact and the coercing validator, once
    compile.mockRestore();
  });

  it("a route's response serializer compiles on the first answer it writes", () => {
    const serialize = cachedSerializerCompiler({
      schema: { type: 'object', properties: { lazily: { type: 'string' } } },
      method: 'GET',
      url: '/',
      httpStatus: '200',
    });
    expect(serialize({ lazily: 'yes', dropped: 1 })).toBe('{"lazily":"yes"}');
  });
});
