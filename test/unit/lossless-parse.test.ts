import { describe, expect, it } from 'vitest';
import {
  DuplicateKeyError,
  JsonSyntaxError,
  parseJsonLossless,
  parseJsonNumbersAsText,
  parseJsonWithBigInts,
} from '../../src/json/lossless-parse.ts';

const asLiteral = {
  number: (literal: string) => `#${literal}`,
  rejectDuplicateKeys: false,
  rejectPrototypeKeys: false,
  maxDepth: 8,
};

describe('parseJsonLossless', () => {
  it('hands every number literal to the reader exactly as written', () => {
    expect(parseJsonLossless('[123456789012345678901234567890, -0.10, 1E+3, 0]', asLiteral)).toEqual([
      '#123456789012345678901234567890',
      '#-0.10',
      '#1E+3',
      '#0',
    ]);
  });

  it('keeps a 30-digit integer exact as a bigint, inside nested arrays and objects', () => {
    expect(
      parseJsonWithBigInts('{"a":[[1,[123456789012345678901234567890]],{"b":[-98765432109876543210]}]}'),
    ).toEqual({
      a: [[1, [123456789012345678901234567890n]], { b: [-98765432109876543210n] }],
    });
  });

  it('reads strings and their escapes as JSON.parse does, digits inside them untouched', () => {
    const text = '{"s":"tab\\tquote\\" slash\\\\ \\u00e9 \\ud83d\\ude00 12345678901234567890"}';
    expect(parseJsonWithBigInts(text)).toEqual(JSON.parse(text));
    expect(parseJsonNumbersAsText(text)).toEqual(JSON.parse(text));
  });

  it('keeps a repeated key last and a __proto__ key as an own property, as JSON.parse does', () => {
    const parsed = parseJsonWithBigInts('{"a":1,"a":2,"__proto__":{"admin":true}}') as Record<
      string,
      unknown
    >;
    expect(parsed['a']).toBe(2);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect((parsed as { admin?: unknown }).admin).toBeUndefined();
  });

  it('refuses repeated keys when the rules say so', () => {
    const rules = { ...asLiteral, rejectDuplicateKeys: true };
    expect(() => parseJsonLossless('{"a":1,"a":2}', rules)).toThrow(DuplicateKeyError);
  });

  it('throws a SyntaxError with the position on text that is not JSON', () => {
    for (const text of ['', '{"a": }', '[1,]', '01', '1.', '-', '"\\x"', '"a', '{"a":1}x', 'nul', '[1 2]']) {
      expect(() => parseJsonWithBigInts(text), text).toThrow(JsonSyntaxError);
      expect(() => parseJsonWithBigInts(text), text).toThrow(SyntaxError);
    }
    expect(() => parseJsonNumbersAsText('{"a": }')).toThrow(/Malformed JSON at position 6/);
  });

  it('refuses nesting deeper than the rules allow', () => {
    expect(() => parseJsonLossless('[[[[[[[[[[1]]]]]]]]]]', asLiteral)).toThrow(/deeply/);
  });
});
