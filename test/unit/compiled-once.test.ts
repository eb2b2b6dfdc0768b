import { describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/http/compiled-once.ts';

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
