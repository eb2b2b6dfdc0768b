import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { JsonNumber, toJsonText } from '../../src/json/json-text.ts';
import { buildPayload, exactAmount } from '../../src/webhooks/outbox.ts';

describe('toJsonText', () => {
  it('writes a JsonNumber as its literal, every digit kept', () => {
    const text = toJsonText({
      amount: new JsonNumber('0.123456789012345678'),
      amount_raw: '123456789012345678',
    });
    expect(text).toBe('{"amount":0.123456789012345678,"amount_raw":"123456789012345678"}');
    // The same value through JSON.stringify loses its last digits.
    expect(JSON.stringify({ amount: Number('0.123456789012345678') })).toBe('{"amount":0.12345678901234568}');
  });

  it('writes what JSON.stringify writes for plain JSON values', () => {
    const value = {
      text: 'quote " backslash \\ newline \n tab \t nul \u0000 café ✓ lone \ud800',
      n: -12.5,
      big: 1e21,
      small: 5e-7,
      zero: 0,
      yes: true,
      no: false,
      none: null,
      list: [1, 'two', null, { nested: [] }, []],
      empty: {},
      'key "quoted"': 1,
    };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
    expect(JSON.parse(toJsonText(value))).toEqual(value);
  });

  it('leaves out undefined properties, as JSON.stringify does', () => {
    expect(toJsonText({ a: 1, b: undefined, c: null })).toBe('{"a":1,"c":null}');
  });

  it('keeps the order of the properties as given', () => {
    expect(toJsonText({ z: 1, a: 2, m: new JsonNumber('3') })).toBe('{"z":1,"a":2,"m":3}');
  });

  it('refuses values with no single JSON form instead of guessing', () => {
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1n,
      undefined,
      () => 1,
      Symbol('s'),
      new Date(0),
      new Map(),
      [undefined],
    ]) {
      expect(() => toJsonText(bad), String(bad)).toThrow(TypeError);
    }
  });

  it('accepts only JSON number literals in a JsonNumber', () => {
    for (const good of [
      '0',
      '-0',
      '1',
      '0.5',
      '-12.000',
      '1e3',
      '1.5E-7',
      '123456789012345678901234567890.1',
    ]) {
      expect(new JsonNumber(good).literal).toBe(good);
      expect(() => JSON.parse(good)).not.toThrow();
    }
    for (const bad of [
      '',
      '01',
      '1.',
      '.5',
      '+1',
      '1e',
      '0x10',
      'NaN',
      'Infinity',
      '1 ',
      ' 1',
      '1,5',
      '1}',
    ]) {
      expect(() => new JsonNumber(bad), bad).toThrow(RangeError);
    }
  });
});

describe('notification payload text', () => {
  const transfer = {
    chain: 'ethereum' as const,
    network: 'mainnet' as const,
    blockNumber: 19_000_000n,
    blockHash: `0x${'ab'.repeat(32)}`,
    txid: `0x${'cd'.repeat(32)}`,
    logIndex: -1,
    from: '0x52908400098527886e0f7030069857d2e4169ee7',
    to: '0xde709f2102306220921060314715629080e2fb77',
    contractAddress: null,
    tokenId: null,
    type: 'ETH',
    amountRaw: 123_456_789_012_345_678n,
    decimals: 18,
    time: new Date('2024-09-25T14:48:27Z'),
  };

  it('carries the exact amount as a JSON number beside amount_raw, and verifies as signed', () => {
    const text = toJsonText(buildPayload('n-1', 'w-1', transfer, 'transfer'));
    expect(text).toContain('"amount":0.123456789012345678,');
    expect(text).toContain('"amount_raw":"123456789012345678","decimals":18,');
    expect(typeof JSON.parse(text).amount).toBe('number');
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes....').toString('base64')}`;
    const signer = new Webhook(secret);
    const at = new Date();
    const headers = {
      'webhook-id': 'n-1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign('n-1', at, text),
    };
    expect(signer.verify(text, headers)).toMatchObject({ amount_raw: '123456789012345678' });
  });

  it('exactAmount gives the literal of the base units in the asset units', () => {
    expect(exactAmount(108_935n, 6).literal).toBe('0.108935');
    expect(exactAmount(1n, 0).literal).toBe('1');
  });
});
