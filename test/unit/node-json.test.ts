import { describe, expect, it } from 'vitest';
import { JsonNumber, toJsonText } from '../../src/json/json-text.ts';
import { parseJsonWithBigInts } from '../../src/json/lossless-parse.ts';
import { holdsJsonNumber, passedOnNodeJson } from '../../src/json/node-json.ts';

describe('node JSON passed on', () => {
  it('writes every number as the node wrote it, integers beyond 2^53 too', () => {
    const node =
      '{"slot":42,"meta":{"fee":5000,"preBalances":[999999970454345720,0,1],"rentEpoch":18446744073709551615,' +
      '"ratio":0.5,"negative":-9007199254740993,"logs":["a"],"err":null,"ok":true}}';
    const passed = passedOnNodeJson(parseJsonWithBigInts(node));
    expect(toJsonText(passed)).toBe(node);
  });

  it('leaves numbers a double holds as numbers, and only the big ones as JsonNumber', () => {
    const passed = passedOnNodeJson(parseJsonWithBigInts('[9007199254740991,9007199254740993]'));
    expect(passed).toEqual([9007199254740991, new JsonNumber('9007199254740993')]);
    expect(holdsJsonNumber(passed)).toBe(true);
    expect(holdsJsonNumber(passedOnNodeJson(parseJsonWithBigInts('{"a":[1,{"b":2}]}')))).toBe(false);
    expect(holdsJsonNumber({ data: { deep: [{ n: new JsonNumber('1') }] } })).toBe(true);
  });
});
