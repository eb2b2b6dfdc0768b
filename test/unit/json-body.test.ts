import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJsonKeepingNumberText } from '../../src/json/lossless-parse.ts';

describe('parseJsonKeepingNumberText', () => {
  it('parses what JSON.parse parses, the same way, when numbers are plain', () => {
    const samples = [
      '{"a":1,"b":[true,false,null],"c":{"d":"e\\u00e9\\n"},"f":-2.5,"g":""}',
      '[]',
      '{}',
      '"text"',
      ' 42 ',
      '[0, -0.125, 1e-7, 123456]',
    ];
    for (const text of samples) expect(parseJsonKeepingNumberText(text), text).toEqual(JSON.parse(text));
  });

  it('keeps the written digits of numbers a double cannot hold or writes differently', () => {
    expect(parseJsonKeepingNumberText('{"a":1.0000000000000000001}')).toEqual({ a: '1.0000000000000000001' });
    expect(parseJsonKeepingNumberText('[12345678901234567890]')).toEqual(['12345678901234567890']);
    expect(parseJsonKeepingNumberText('[1e3, 1.50, 0.1]')).toEqual(['1e3', '1.50', 0.1]);
  });

  it('rejects malformed text with a position', () => {
    for (const text of [
      '{',
      '{"a"}',
      '{"a":}',
      '[1,]',
      '01',
      '1.',
      '.5',
      'tru',
      '"a',
      '{"a":1}x',
      "{'a':1}",
      '"\\x"',
    ]) {
      expect(() => parseJsonKeepingNumberText(text), text).toThrow(JsonSyntaxError);
    }
  });

  it('rejects prototype poisoning', () => {
    expect(() => parseJsonKeepingNumberText('{"__proto__":{"admin":true}}')).toThrow(/__proto__/);
    expect(() => parseJsonKeepingNumberText('{"constructor":{"prototype":{}}}')).toThrow(/constructor/);
  });

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(() => parseJsonKeepingNumberText('['.repeat(10_000))).toThrow(/deeply/);
  });
});
