import { describe, expect, it } from 'vitest';
import { convert, fiatWorth, priceWorth, UNIT_WORTH } from '../../src/prices/conversion.ts';
import {
  add,
  compare,
  type Decimal,
  divide,
  formatDecimal,
  fromUnits,
  multiply,
  parseDecimal,
  ratioToPercentChange,
  subtract,
} from '../../src/prices/decimal.ts';

const d = (text: string): Decimal => {
  const value = parseDecimal(text);
  if (value === null) throw new Error(`not a decimal: ${text}`);
  return value;
};
const f = formatDecimal;

describe('parseDecimal / formatDecimal', () => {
  it('reads provider text exactly and prints it plainly', () => {
    expect(f(d('67187.33000000'))).toBe('67187.33');
    expect(f(d('-0.39'))).toBe('-0.39');
    expect(f(d('1.2e-7'))).toBe('0.00000012');
    expect(f(d('1.5E3'))).toBe('1500');
    expect(f(d('.5'))).toBe('0.5');
    expect(f(d('+7.'))).toBe('7');
    expect(f(d('-0.000'))).toBe('0');
    expect(f(d('0.00000000000000000000000000000000000001'))).toBe('0.00000000000000000000000000000000000001');
    // More digits than a double holds survive untouched.
    expect(f(d('67187.335893656641234567'))).toBe('67187.335893656641234567');
    expect(f(d('123456789012345678901234567890.123456789'))).toBe('123456789012345678901234567890.123456789');
  });

  it('refuses what is not a decimal, and hostile exponents', () => {
    for (const bad of ['', 'abc', '1.2.3', 'NaN', 'Infinity', '0x10', '1e', '-', '.', '1e1000000', '1,5']) {
      expect(parseDecimal(bad), bad).toBeNull();
    }
    expect(parseDecimal('1'.repeat(101))).toBeNull();
  });

  it('equal values have equal representations', () => {
    expect(d('1.500')).toEqual(d('1.5'));
    expect(fromUnits(6718733000000n, 8)).toEqual(d('67187.33'));
    expect(compare(d('0.30'), d('0.3'))).toBe(0);
    expect(compare(d('-1'), d('0.0001'))).toBe(-1);
  });
});

describe('exact arithmetic', () => {
  it('has no float drift: 0.1 + 0.2 is 0.3', () => {
    expect(0.1 + 0.2).not.toBe(0.3); // the drift this module exists to avoid
    expect(f(add(d('0.1'), d('0.2')))).toBe('0.3');
    expect(f(subtract(d('0.3'), d('0.1')))).toBe('0.2');
    expect(f(multiply(d('0.1'), d('3')))).toBe('0.3');
    expect(f(multiply(d('1.1'), d('1.1')))).toBe('1.21');
    expect(f(divide(d('0.3'), d('0.1')))).toBe('3');
    expect(f(divide(d('0.69'), d('0.1')))).toBe('6.9'); // 0.69 / 0.1 = 6.8999999999999995 in floats
  });

  it('divides to 18 significant digits, half away from zero', () => {
    expect(f(divide(d('1'), d('3')))).toBe('0.333333333333333333');
    expect(f(divide(d('2'), d('3')))).toBe('0.666666666666666667');
    expect(f(divide(d('-2'), d('3')))).toBe('-0.666666666666666667');
    expect(f(divide(d('2'), d('-3')))).toBe('-0.666666666666666667');
    expect(f(divide(d('1'), d('7'), 6))).toBe('0.142857');
    expect(f(divide(d('5'), d('1000'), 1))).toBe('0.005');
    expect(f(divide(d('15'), d('10'), 1))).toBe('2');
    expect(f(divide(d('0'), d('3')))).toBe('0');
    expect(() => divide(d('1'), d('0'))).toThrow(RangeError);
  });

  it('keeps whole units of huge quotients and the digits of tiny ones', () => {
    expect(f(divide(d('1000000000000000000000000000000'), d('1')))).toBe('1000000000000000000000000000000');
    expect(f(divide(d('12345678901234567890123'), d('1')))).toBe('12345678901234567890123');
    expect(f(divide(d('0.000000000000000001'), d('3')))).toBe('0.000000000000000000333333333333333333');
    expect(f(divide(d('1'), d('99999999999999999999')))).toBe('0.00000000000000000001');
  });

  it('turns a price ratio into a percent change', () => {
    expect(f(ratioToPercentChange(d('1.0363861414')))).toBe('3.63861414');
    expect(f(ratioToPercentChange(d('0.96')))).toBe('-4');
  });
});

describe('convert', () => {
  it('USDT -> TRX crosses through USD with one rounding', () => {
    const usdt = priceWorth(d('1.0004116447370425'));
    const trx = priceWorth(d('0.1226478193437921'));
    const { rate, result } = convert(d('100'), usdt, trx);
    expect(f(result)).toBe('815.678297494067099');
    expect(f(rate)).toBe('8.15678297494067099');
    // The way back lands on 100 again: 99.99999999999999995... rounds up at the 18th digit.
    expect(f(convert(d('815.678297494067099'), trx, usdt).result)).toBe('100');
  });

  it('is exact where the answer terminates: 0.1 and 0.2 priced coins', () => {
    expect(f(convert(d('0.3'), priceWorth(d('0.1')), priceWorth(d('0.2'))).result)).toBe('0.15');
    expect(f(convert(d('0.1'), priceWorth(d('0.2')), priceWorth(d('0.1'))).result)).toBe('0.2');
  });

  it('coin -> fiat is the product, fiat -> coin the quotient', () => {
    const btcEur = d('61765.12');
    expect(f(convert(d('0.00012345'), priceWorth(btcEur), UNIT_WORTH).result)).toBe('7.624904064');
    const back = convert(d('7.624904064'), UNIT_WORTH, priceWorth(btcEur));
    expect(f(back.result)).toBe('0.00012345');
    expect(f(back.rate)).toBe('0.0000161903676379160277');
  });

  it('fiat -> fiat goes through a reference coin priced in both', () => {
    // 1 EUR in GBP: BTC in GBP / BTC in EUR.
    const eur = fiatWorth(d('52929.32'), d('61765.12'));
    const { rate, result } = convert(d('10'), eur, UNIT_WORTH);
    expect(f(rate)).toBe('0.856945149624901563');
    expect(f(result)).toBe('8.56945149624901563');
  });

  it('handles huge and tiny amounts', () => {
    const wei = d('0.000000000000000001');
    expect(f(convert(wei, priceWorth(d('3492.8178217645')), UNIT_WORTH).result)).toBe(
      '0.0000000000000034928178217645',
    );
    const huge = d('123456789012345678901234567890');
    expect(f(convert(huge, priceWorth(d('1')), priceWorth(d('1'))).result)).toBe(
      '123456789012345678901234567890',
    );
    expect(f(convert(huge, priceWorth(d('2')), priceWorth(d('1'))).result)).toBe(
      '246913578024691357802469135780',
    );
    expect(f(convert(d('0'), priceWorth(d('2')), priceWorth(d('3'))).result)).toBe('0');
  });
});
