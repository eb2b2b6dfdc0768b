import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DuplicateKeyError,
  JsonSyntaxError,
  parseJsonKeepingNumberText,
  parseJsonLossless,
  parseJsonNumbersAsText,
  parseJsonWithBigInts,
  TooManyJsonValuesError,
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

describe('parseJsonLossless against JSON.parse', () => {
  const asDoubles = {
    number: (literal: string) => Number(literal),
    rejectDuplicateKeys: false,
    rejectPrototypeKeys: false,
    maxDepth: 512,
  };
  const texts = fc
    .tuple(fc.jsonValue(), fc.constantFrom(undefined, 0, 1, '\t', ' \r\n'))
    .map(([value, space]) => JSON.stringify(value, null, space));

  it('builds what JSON.parse builds, for any JSON text and any spacing', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(parseJsonLossless(text, asDoubles)).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps request bodies as JSON.parse does, every number either the same double or its exact text', () => {
    const bodies = texts.filter((text) => !/__proto__|constructor/.test(text));
    fc.assert(
      fc.property(bodies, (text) => {
        let expected: unknown;
        try {
          expected = parseJsonLossless(text, { ...asDoubles, rejectDuplicateKeys: true, maxDepth: 64 });
        } catch {
          return; // a key given twice or deeper than 64: refused by both, checked elsewhere
        }
        const numbersAsDoubles = (value: unknown): unknown =>
          typeof value === 'string' && /^-?\d/.test(value) && !Number.isNaN(Number(value))
            ? Number(value)
            : Array.isArray(value)
              ? value.map(numbersAsDoubles)
              : typeof value === 'object' && value !== null
                ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersAsDoubles(v)]))
                : value;
        const kept = parseJsonKeepingNumberText(text);
        expect(numbersAsDoubles(kept)).toEqual(numbersAsDoubles(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly the texts JSON.parse refuses (cut, spliced or random), with a JsonSyntaxError', () => {
    const broken = fc.oneof(
      fc.tuple(texts, fc.nat()).map(([text, n]) => text.slice(0, n % (text.length + 1))),
      fc
        .tuple(
          texts,
          fc.nat(),
          fc.constantFrom('"', ',', ':', '}', ']', '[', '{', '\\', '-', '.', 'e', '0', '\n', '\u0001'),
        )
        .map(([text, n, c]) => {
          const at = n % (text.length + 1);
          return text.slice(0, at) + c + text.slice(at);
        }),
      fc.string({ unit: fc.constantFrom(...'{}[]":,.-+eE0123456789 tfrulnas\\u"'), maxLength: 20 }),
    );
    fc.assert(
      fc.property(broken, (text) => {
        let engine: unknown = null;
        try {
          JSON.parse(text);
        } catch (error) {
          engine = error;
        }
        if (engine === null) expect(() => parseJsonNumbersAsText(text)).not.toThrow();
        else expect(() => parseJsonNumbersAsText(text)).toThrow(JsonSyntaxError);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads long strings as JSON.parse does: escapes, quotes and control characters anywhere in them', () => {
    const unit = fc.constantFrom(
      'a',
      'é',
      '0',
      'u',
      '\\',
      '\\u00e9',
      '\\n',
      '"',
      '\n',
      '\u0001',
      '\ud83d\ude00',
    );
    fc.assert(
      fc.property(fc.string({ unit, minLength: 20, maxLength: 120 }), (body) => {
        const text = `["${body}", 1]`;
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expect(() => parseJsonNumbersAsText(text)).toThrow(JsonSyntaxError);
          return;
        }
        expect(parseJsonWithBigInts(text)).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never takes a string of the text for a number it keeps aside, even one made of NULs', () => {
    const text =
      '["\\u0000", "\\u0000\\u00000", "\\u00000", 123456789012345678901, {"\\u0000\\u0000\\u0000": 1e400}]';
    expect(parseJsonLossless(text, asLiteral)).toEqual([
      '\u0000',
      '\u0000\u00000',
      '\u00000',
      '#123456789012345678901',
      { '\u0000\u0000\u0000': '#1e400' },
    ]);
    expect(parseJsonWithBigInts(text)).toEqual([
      '\u0000',
      '\u0000\u00000',
      '\u00000',
      123456789012345678901n,
      { '\u0000\u0000\u0000': Infinity },
    ]);
  });

  it('refuses a text of more values than the rules allow before building any', () => {
    const rules = { ...asDoubles, maxValues: 3 };
    expect(parseJsonLossless('[1,2]', rules)).toEqual([1, 2]);
    expect(() => parseJsonLossless('[1,2,3]', rules)).toThrow(TooManyJsonValuesError);
    expect(() => parseJsonKeepingNumberText(`[${'{},'.repeat(5_000)}{}]`)).toThrow(TooManyJsonValuesError);
  });

  it('keeps "-0" and other short forms a double writes differently as text in request bodies', () => {
    expect(parseJsonKeepingNumberText('[-0, 0, -5, 123456789012345, 1234567890123456789]')).toEqual([
      '-0',
      0,
      -5,
      123456789012345,
      '1234567890123456789',
    ]);
  });
});
