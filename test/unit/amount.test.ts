import { describe, expect, it } from 'vitest';
import {
  AmountError,
  type AmountErrorReason,
  amountJsonLiteral,
  assetAmount,
  formatAmount,
  MAX_DECIMALS,
  parseAmount,
  restateAmount,
} from '../../src/chains/amount.ts';
import { seededRandom } from '../helpers/seeded-random.ts';

function rejection(input: unknown, decimals: number, allowZero = false): AmountError {
  try {
    parseAmount(input, decimals, { allowZero });
  } catch (error) {
    expect(error).toBeInstanceOf(AmountError);
    return error as AmountError;
  }
  throw new Error(`expected ${String(input)} to be rejected`);
}

function expectRejected(input: unknown, decimals: number, reason: AmountErrorReason, message?: RegExp): void {
  const error = rejection(input, decimals);
  expect(error.reason, `reason for ${String(input)}`).toBe(reason);
  if (message) expect(error.message).toMatch(message);
}

function randomInt(random: () => number, below: number): number {
  return Math.floor(random() * below);
}

/** A random bigint of 1..maxDigits decimal digits, biased towards short values and runs of zeros. */
function randomUnits(random: () => number, maxDigits: number): bigint {
  const length = 1 + randomInt(random, maxDigits);
  let text = '';
  for (let i = 0; i < length; i++) text += random() < 0.3 ? '0' : String(randomInt(random, 10));
  return BigInt(text);
}

describe('parseAmount: strings', () => {
  it.each([
    ['1', 6, 1_000_000n],
    ['1.5', 6, 1_500_000n],
    ['0.000001', 6, 1n],
    ['.5', 6, 500_000n],
    ['1.', 6, 1_000_000n],
    ['007', 0, 7n],
    ['1.500000000', 6, 1_500_000n],
    ['0.1', 18, 100_000_000_000_000_000n],
    ['115792089237316195423570985008687907853269984665640564039457.584007913129639935', 18, 2n ** 256n - 1n],
    ['1' + '0'.repeat(77), 0, 10n ** 77n],
    ['1.' + '0'.repeat(150), 2, 100n],
  ])('%s with %i decimals is %s', (input, decimals, expected) => {
    expect(parseAmount(input, decimals)).toBe(expected);
  });

  it.each(['1e1', '2e-3', '1E18', '1e+3', '1.5E-3', '0.1e1', '.5e1', '1.e2', '0e5', '1e1000000'])(
    'refuses the exponent form %j, as the README documents',
    (input) => {
      expectRejected(input, 18, 'exponent', /^amount must be written without an exponent/);
      expect(rejection(input, 18, true).reason).toBe('exponent');
    },
  );

  it('accepts zero only when allowed', () => {
    for (const zero of ['0', '0.0', '.0', '0.', '000', '0.000000000000000000000000000000000']) {
      expectRejected(zero, 6, 'zero', /^amount must be greater than zero$/);
      expect(parseAmount(zero, 6, { allowZero: true })).toBe(0n);
    }
  });

  it('rejects negatives, including negative zero', () => {
    for (const input of ['-1', '-0', '-0.0', '-.5', '-1e3', '-2E-3']) {
      expectRejected(input, 6, 'negative', /^amount must not be negative$/);
    }
    expect(rejection('-0', 6, true).reason).toBe('negative');
  });

  it.each([
    '',
    ' ',
    ' 1',
    '1 ',
    '\t1',
    '1\n',
    '.',
    'e3',
    '.e3',
    '1e',
    '1e+',
    '1e1.5',
    '1.2.3',
    '1..2',
    '+1',
    '--1',
    '-',
    '-abc',
    '0x10',
    '0b1',
    '1_000',
    '1,5',
    '1,000.00',
    'NaN',
    'Infinity',
    '-Infinity',
    'abc',
    '١٢',
    '１',
  ])('rejects %j as not a decimal number', (input) => {
    expectRejected(input, 6, 'not_decimal', /^amount is not a decimal number$/);
  });

  it('rejects more decimals than the asset has, naming the limit', () => {
    expectRejected('1.0000001', 6, 'too_many_decimals', /^amount has more than 6 decimals$/);
    expectRejected('0.01', 1, 'too_many_decimals', /^amount has more than 1 decimal$/);
    expectRejected('0.5', 0, 'too_many_decimals', /^amount must be a whole number$/);
    expectRejected('0.0000000000000000015', 18, 'too_many_decimals');
  });

  it('rejects absurd sizes without doing absurd work', () => {
    const started = performance.now();
    expectRejected('1' + '0'.repeat(78), 0, 'too_large', /^amount is too large$/);
    expectRejected('1'.repeat(201), 0, 'too_large', /^amount has too many digits$/);
    expectRejected('1e' + '9'.repeat(199), 0, 'too_large', /^amount has too many digits$/);
    expectRejected('0'.repeat(1_000_000), 0, 'too_large');
    expect(performance.now() - started).toBeLessThan(500);
    // The largest accepted whole part: 78 digits.
    expect(parseAmount('9'.repeat(78), 0)).toBe(10n ** 78n - 1n);
  });

  it('rejects values that are neither strings nor numbers, bigint included', () => {
    for (const input of [1n, null, undefined, true, {}, [], ['1'], { amount: '1' }]) {
      expectRejected(input, 6, 'not_decimal', /^amount must be a decimal string or number$/);
    }
  });
});

describe('parseAmount: JSON numbers', () => {
  it.each([
    [1, 6, 1_000_000n],
    [1.5, 6, 1_500_000n],
    [0.1, 18, 10n ** 17n],
    [0.000001, 6, 1n],
    [2832.001791, 6, 2_832_001_791n],
    [0.0001, 8, 10_000n],
    [100, 6, 100_000_000n],
    [123456789012345, 0, 123_456_789_012_345n],
    [1e15, 0, 10n ** 15n],
    [9007199254740990, 0, 9_007_199_254_740_990n],
  ])('%d with %i decimals is %s', (input, decimals, expected) => {
    expect(parseAmount(input, decimals)).toBe(expected);
  });

  it('reads a number through its shortest decimal text, never through float arithmetic', () => {
    // 1.005 * 1000 is 1004.9999999999999 and 4.35 * 100 is 434.99999999999994 in floating point.
    expectRejected(1.005, 2, 'too_many_decimals');
    expect(parseAmount(1.005, 3)).toBe(1005n);
    expect(parseAmount(4.35, 2)).toBe(435n);
    expect(parseAmount(0.07, 2)).toBe(7n);
  });

  it('refuses a number written with an exponent (the JSON literal 1e-7 arrives as that double)', () => {
    for (const input of [1e-7, 2.5e-8, Number.MIN_VALUE]) {
      expectRejected(input, 30, 'exponent', /^amount must be written without an exponent/);
    }
  });

  it('rejects non-finite numbers', () => {
    for (const input of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expectRejected(input, 6, 'not_decimal', /finite/);
    }
    expectRejected(Number.NEGATIVE_INFINITY, 6, 'not_decimal');
  });

  it('rejects negative numbers and negative zero', () => {
    expectRejected(-1, 6, 'negative', /^amount must not be negative$/);
    expectRejected(-0.5, 6, 'negative');
    expectRejected(-0, 6, 'negative');
    expect(rejection(-0, 6, true).reason).toBe('negative');
  });

  it('rejects numbers that may already have lost digits, telling the client to send a string', () => {
    // 0.1 + 0.2 prints as 0.30000000000000004: 17 significant digits.
    expectRejected(0.1 + 0.2, 18, 'imprecise_number', /send it as a string/);
    expectRejected(1234567890.1234567, 8, 'imprecise_number');
    expectRejected(1234567890123456, 0, 'imprecise_number');
    expectRejected(Number.MAX_SAFE_INTEGER, 0, 'imprecise_number');
    expectRejected(Number.MAX_SAFE_INTEGER + 1, 0, 'too_large', /send it as a string/);
    expectRejected(1e20, 0, 'too_large', /send it as a string/);
    expectRejected(Number.MAX_VALUE, 0, 'too_large');
  });

  it('applies the asset decimals and zero rules to numbers too', () => {
    expectRejected(1.0000001, 6, 'too_many_decimals', /^amount has more than 6 decimals$/);
    expectRejected(0, 6, 'zero');
    expect(parseAmount(0, 6, { allowZero: true })).toBe(0n);
  });

  it('agrees with the string form for every number of up to 15 significant digits (property)', () => {
    const random = seededRandom(0x5eed);
    for (let i = 0; i < 5000; i++) {
      const digits = 1 + randomInt(random, 15);
      let significand = String(1 + randomInt(random, 9));
      for (let d = 1; d < digits; d++) significand += String(randomInt(random, 10));
      const decimals = randomInt(random, MAX_DECIMALS + 1);
      // Place the decimal point so the value fits the asset's decimals and stays below 2^53.
      const fraction = randomInt(random, Math.min(decimals, digits) + 1);
      const text =
        fraction === 0
          ? significand
          : `${significand.slice(0, -fraction) || '0'}.${significand.slice(-fraction).padStart(fraction, '0')}`;
      expect(parseAmount(Number(text), decimals), `${text} with ${decimals} decimals`).toBe(
        parseAmount(text, decimals),
      );
    }
  });
});

describe('formatAmount', () => {
  it.each([
    [1_500_000n, 6, '1.5'],
    [0n, 6, '0'],
    [0n, 0, '0'],
    [1n, 6, '0.000001'],
    [1_000_000n, 6, '1'],
    [10n, 1, '1'],
    [123n, 0, '123'],
    [100_000_000_000_000_000n, 18, '0.1'],
    [2n ** 256n - 1n, 18, '115792089237316195423570985008687907853269984665640564039457.584007913129639935'],
    [1n, 30, '0.000000000000000000000000000001'],
    [-1_500_000n, 6, '-1.5'],
    [-1n, 6, '-0.000001'],
    [-5n, 0, '-5'],
  ])('%s with %i decimals is %s', (units, decimals, expected) => {
    expect(formatAmount(units, decimals)).toBe(expected);
  });

  it('pads to a fixed number of fraction digits', () => {
    expect(formatAmount(1_500_000n, 6, { fixed: 12 })).toBe('1.500000000000');
    expect(formatAmount(1_000n, 6, { fixed: 12 })).toBe('0.001000000000');
    expect(formatAmount(0n, 18, { fixed: 18 })).toBe('0.000000000000000000');
    expect(formatAmount(0n, 6, { fixed: 6 })).toBe('0.000000');
    expect(formatAmount(1_500_000n, 6, { fixed: 6 })).toBe('1.500000');
    expect(formatAmount(7n, 0, { fixed: 2 })).toBe('7.00');
    expect(formatAmount(-1_500_000n, 6, { fixed: 8 })).toBe('-1.50000000');
  });

  it('drops fraction digits only when they are zero, and never rounds', () => {
    expect(formatAmount(1_500_000n, 6, { fixed: 1 })).toBe('1.5');
    expect(formatAmount(1_000_000n, 6, { fixed: 0 })).toBe('1');
    expect(formatAmount(1_230_000_000_000_000_000n, 18, { fixed: 2 })).toBe('1.23');
    expect(() => formatAmount(1_500_000n, 6, { fixed: 0 })).toThrow(RangeError);
    expect(() => formatAmount(1n, 18, { fixed: 6 })).toThrow(/cannot be shown exactly/);
  });

  it('rejects bad arguments as programming errors', () => {
    expect(() => formatAmount(1n, -1)).toThrow(RangeError);
    expect(() => formatAmount(1n, 31)).toThrow(RangeError);
    expect(() => formatAmount(1n, 1.5)).toThrow(RangeError);
    expect(() => formatAmount(1n, 6, { fixed: -1 })).toThrow(RangeError);
    expect(() => formatAmount(1n, 6, { fixed: 2.5 })).toThrow(RangeError);
    expect(() => formatAmount(1n, 6, { fixed: 1000 })).toThrow(RangeError);
    expect(() => formatAmount(1 as unknown as bigint, 6)).toThrow(TypeError);
    expect(() => parseAmount('1', 31)).toThrow(RangeError);
    expect(() => parseAmount('1', Number.NaN)).toThrow(RangeError);
  });
});

/** RFC 8259's number grammar. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

describe('assetAmount', () => {
  it('reads the same amount of the same asset one way, with every decimal of the asset', () => {
    expect(assetAmount(1_500_000n, 6)).toBe('1.500000');
    expect(assetAmount(12_500_000n, 6)).toBe('12.500000');
    expect(assetAmount(15n * 10n ** 17n, 18)).toBe('1.500000000000000000');
    expect(assetAmount(150_000_000n, 8)).toBe('1.50000000');
    expect(assetAmount(1n, 0)).toBe('1');
    expect(assetAmount(0n, 9)).toBe('0.000000000');
  });
});

describe('restateAmount', () => {
  it('reads text stored padded to 12 decimals by the rule', () => {
    expect(restateAmount('1.500000000000', 6)).toBe('1.500000');
    expect(restateAmount('1.000000000000', 0)).toBe('1');
    expect(restateAmount('0.001000000000', 18)).toBe('0.001000000000000000');
    expect(restateAmount('1.5', 8)).toBe('1.50000000');
  });

  it('keeps text that is no amount of that asset as stored', () => {
    expect(restateAmount('1.1234567', 6)).toBe('1.1234567');
    expect(restateAmount('not a number', 6)).toBe('not a number');
  });
});

describe('amountJsonLiteral', () => {
  it('writes the exact value, every digit, where a double would round', () => {
    expect(amountJsonLiteral(123_456_789_012_345_678n, 18)).toBe('0.123456789012345678');
    expect(Number('0.123456789012345678')).toBe(0.12345678901234568);
    expect(amountJsonLiteral(123_456_789_012_345_678_901n, 18)).toBe('123.456789012345678901');
    expect(amountJsonLiteral(2n ** 256n - 1n, 18)).toBe(
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    );
    expect(amountJsonLiteral(123_456_789_012_345_678n, 6)).toBe('123456789012.345678');
  });

  it("writes plain decimals with exactly the asset's decimals: no exponent, no dot without digits, a zero before the point", () => {
    expect(amountJsonLiteral(1n, 18)).toBe('0.000000000000000001');
    expect(amountJsonLiteral(10n ** 30n, 0)).toBe('1000000000000000000000000000000');
    expect(amountJsonLiteral(1_500_000n, 6)).toBe('1.500000');
    expect(amountJsonLiteral(108_935n, 6)).toBe('0.108935');
    expect(amountJsonLiteral(10n ** 18n, 18)).toBe('1.000000000000000000');
    expect(amountJsonLiteral(0n, 18)).toBe('0.000000000000000000');
    expect(amountJsonLiteral(1n, 0)).toBe('1');
    expect(amountJsonLiteral(-1n, 6)).toBe('-0.000001');
  });

  it('always has JSON number grammar and parses back to the same base units', () => {
    const random = seededRandom(0x150a);
    for (let i = 0; i < 3000; i++) {
      const decimals = randomInt(random, MAX_DECIMALS + 1);
      const units = randomUnits(random, 78 + decimals);
      const literal = amountJsonLiteral(units, decimals);
      expect(literal, `${units} @ ${decimals}`).toMatch(JSON_NUMBER);
      expect(parseAmount(literal, decimals, { allowZero: true })).toBe(units);
    }
  });
});

describe('round trips (property)', () => {
  it('format then parse returns the same base units for any bigint and decimals', () => {
    const random = seededRandom(0xa40d7);
    for (let i = 0; i < 5000; i++) {
      const decimals = randomInt(random, MAX_DECIMALS + 1);
      // Whole part stays within the 78 accepted digits.
      const units = randomUnits(random, 78 + decimals);
      const minimal = formatAmount(units, decimals);
      expect(parseAmount(minimal, decimals, { allowZero: true }), `${units} @ ${decimals}`).toBe(units);
      const padded = formatAmount(units, decimals, { fixed: decimals + randomInt(random, 5) });
      expect(parseAmount(padded, decimals, { allowZero: true }), `${padded} @ ${decimals}`).toBe(units);
      if (units !== 0n) {
        expect(formatAmount(-units, decimals)).toBe('-' + minimal);
        expectRejected(formatAmount(-units, decimals), decimals, 'negative');
      }
    }
  });

  it('parse then format gives the canonical text', () => {
    const random = seededRandom(0xf00d);
    for (let i = 0; i < 2000; i++) {
      const decimals = randomInt(random, MAX_DECIMALS + 1);
      const units = randomUnits(random, 40);
      const canonical = formatAmount(units, decimals);
      // Re-spell the same value with leading and trailing zeros; it must come back canonical.
      const [whole, fraction = ''] = canonical.split('.');
      const respelled = `00${whole}.${fraction}${'0'.repeat(randomInt(random, 5))}`;
      expect(formatAmount(parseAmount(respelled, decimals, { allowZero: true }), decimals), respelled).toBe(
        canonical,
      );
    }
  });

  it('a formatted amount survives the JSON-number path when it has at most 15 significant digits and no exponent', () => {
    const random = seededRandom(0xbeef);
    for (let i = 0; i < 3000; i++) {
      const decimals = randomInt(random, MAX_DECIMALS + 1);
      const units = randomUnits(random, 15);
      // What a client reading the literal with JSON.parse holds, and may send back.
      const asNumber = JSON.parse(amountJsonLiteral(units, decimals)) as number;
      // Below 1e-6 a double's shortest text has an exponent, which is refused: such a client sends a string.
      if (/e/.test(String(asNumber))) expect(rejection(asNumber, decimals, true).reason).toBe('exponent');
      else expect(parseAmount(asNumber, decimals, { allowZero: true }), `${units} @ ${decimals}`).toBe(units);
    }
  });
});
