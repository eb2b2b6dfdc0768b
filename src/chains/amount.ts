/**
 * Exact amounts: human decimal text (or a JSON number) <-> bigint base units (sun, wei, lamports,
 * satoshis, token units). Nothing here goes through floating point: wire formats that want a JSON number
 * get its exact literal text (`amountJsonLiteral`), never a double.
 */

/** Most decimals an asset may declare here (ERC-20 allows up to 255; nothing real uses more than 24). */
export const MAX_DECIMALS = 30;

/** Whole-unit digits accepted: 78 is the length of 2^256 - 1, the largest amount any supported chain holds. */
const MAX_INTEGER_DIGITS = 78;

/** Longest input text; bounds the work done on hostile input such as "1e1000000" or a megabyte of zeros. */
const MAX_INPUT_LENGTH = 200;

/**
 * A double holds every decimal of up to 15 significant digits exactly (DBL_DIG). A JSON number whose
 * shortest text needs more digits is not what the client typed, or may not be: reject it.
 */
const MAX_NUMBER_SIGNIFICANT_DIGITS = 15;

/** Upper bound for `formatAmount`'s `fixed`, so a bad argument cannot build a huge string. */
const MAX_FIXED_DIGITS = 100;

/** Digits on either side of an optional dot; ASCII digits only. */
const DECIMAL_TEXT = /^([0-9]*)(?:\.([0-9]*))?$/;

/** A decimal with an exponent ("1e1", "2E-3"): refused, as the README documents, not read as 10 or 0.002. */
const EXPONENT_TEXT = /^[0-9]*(?:\.[0-9]*)?[eE][+-]?[0-9]+$/;

/** Written for the client: how to write the amount instead. */
const EXPONENT_MESSAGE = 'amount must be written without an exponent, in plain decimal digits such as 0.002';

export type AmountErrorReason =
  | 'not_decimal'
  | 'negative'
  | 'too_many_decimals'
  | 'too_large'
  | 'zero'
  | 'imprecise_number'
  | 'exponent';

/** A client's amount was not acceptable; `message` is written for the API client. */
export class AmountError extends Error {
  override readonly name = 'AmountError';
  readonly reason: AmountErrorReason;

  constructor(reason: AmountErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface ParseAmountOptions {
  /** Accept an amount of zero (balances, filters); transfers leave this off. */
  allowZero?: boolean;
}

/**
 * Parses a client's amount into base units for an asset with `decimals` decimals.
 *
 * Accepts a decimal string ("1", "1.5", ".5", "1.") or a JSON number, which is read through its shortest
 * round-trip text `String(n)`, never through float arithmetic. An exponent ("1e1", "2E-3", or a number
 * whose shortest text has one, such as the JSON literal `1e-7`) is refused: the README lists "1e1" among
 * the forms not converted, and a typo'd exponent moves money by powers of ten. Numbers are refused when
 * that text has more than 15 significant digits or the value is beyond Number.MAX_SAFE_INTEGER: the double
 * may already have lost the client's digits, so the client is told to send a string. Other types (bigint
 * included) are refused: callers holding base units need no parsing.
 *
 * The request body parser keeps a JSON number's literal text unless a double writes it back as sent, so a
 * number only arrives here with an exponent when the client wrote it with one.
 *
 * Trailing zeros beyond the asset's decimals are fine ("1.500000000" with 6 decimals).
 *
 * @throws AmountError for anything a client could send wrong.
 * @throws RangeError when `decimals` is not an integer in 0..MAX_DECIMALS (a programming error).
 */
export function parseAmount(input: unknown, decimals: number, options: ParseAmountOptions = {}): bigint {
  assertDecimals(decimals);
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else if (typeof input === 'number') {
    text = numberToDecimalText(input);
  } else {
    throw new AmountError('not_decimal', 'amount must be a decimal string or number');
  }
  const units = decimalTextToUnits(text, decimals);
  if (units === 0n && !options.allowZero) {
    throw new AmountError('zero', 'amount must be greater than zero');
  }
  return units;
}

export interface FormatAmountOptions {
  /**
   * Exactly this many fraction digits (0 prints no dot). Digits beyond the asset's decimals are zero
   * padding. Fewer digits than the asset's decimals are allowed only when the dropped digits are all
   * zero: money is never rounded silently, so a lossy request throws a RangeError.
   */
  fixed?: number;
}

/**
 * Base units to decimal text. Minimal by default (1500000n, 6 -> "1.5"; 0n -> "0"); see `fixed` for
 * padded output (1500000n, 6, { fixed: 12 } -> "1.500000000000"). Negative units (deltas) get a "-".
 */
export function formatAmount(units: bigint, decimals: number, options: FormatAmountOptions = {}): string {
  assertDecimals(decimals);
  if (typeof units !== 'bigint') throw new TypeError('formatAmount expects bigint base units');
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  let fraction = digits.slice(digits.length - decimals);

  const { fixed } = options;
  if (fixed === undefined) {
    fraction = fraction.replace(/0+$/, '');
  } else {
    if (!Number.isInteger(fixed) || fixed < 0 || fixed > MAX_FIXED_DIGITS) {
      throw new RangeError(`fixed must be an integer from 0 to ${MAX_FIXED_DIGITS}`);
    }
    if (fixed >= fraction.length) {
      fraction = fraction.padEnd(fixed, '0');
    } else {
      if (/[1-9]/.test(fraction.slice(fixed))) {
        throw new RangeError(
          `amount has more than ${fixed} significant decimals and cannot be shown exactly`,
        );
      }
      fraction = fraction.slice(0, fixed);
    }
  }
  return (negative ? '-' : '') + whole + (fraction === '' ? '' : '.' + fraction);
}

/**
 * The one way an amount reads, wherever the gateway shows one (history, webhooks, balances, lookups):
 * decimal text in the asset's units with exactly the asset's decimals, so the same amount of the same
 * asset always reads the same (1500000n, 6 -> "1.500000"; an NFT, 0 decimals -> "1"). Chaingateway
 * writes its balances and lookups this way ("0.000000000000000000" ETH, "1.000000" TRX).
 */
export function assetAmount(units: bigint, decimals: number): string {
  return formatAmount(units, decimals, { fixed: decimals });
}

/**
 * Base units as the exact JSON number literal of `assetAmount`: 123456789012345678n with 18 decimals is
 * `0.123456789012345678`, all of it, where a double would keep 17 digits. JSON allows any number of
 * digits; write the literal into the JSON text as is (json/json-text.ts). The text already has JSON's
 * number grammar: no exponent, no leading zero, no trailing dot.
 */
export function amountJsonLiteral(units: bigint, decimals: number): string {
  return assetAmount(units, decimals);
}

/**
 * Stored decimal text restated by `assetAmount` for an asset with `decimals` decimals: history rows
 * written before the rule padded to 12 decimals ("1.500000000000" TRX reads "1.500000"). Text that is not
 * an amount of that asset (it has more significant decimals) is returned as stored.
 */
export function restateAmount(text: string, decimals: number): string {
  try {
    return assetAmount(parseAmount(text, decimals, { allowZero: true }), decimals);
  } catch (error) {
    if (error instanceof AmountError) return text;
    throw error;
  }
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`decimals must be an integer from 0 to ${MAX_DECIMALS}, got ${decimals}`);
  }
}

function numberToDecimalText(value: number): string {
  if (!Number.isFinite(value)) throw new AmountError('not_decimal', 'amount must be a finite number');
  // Object.is catches -0, which String() would print as "0".
  if (value < 0 || Object.is(value, -0)) throw new AmountError('negative', 'amount must not be negative');
  if (value > Number.MAX_SAFE_INTEGER) {
    throw new AmountError('too_large', 'amount is too large for a JSON number; send it as a string');
  }
  const text = String(value);
  if (/e/i.test(text)) throw new AmountError('exponent', EXPONENT_MESSAGE);
  const mantissa = text.replace('.', '');
  const significant = mantissa.replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > MAX_NUMBER_SIGNIFICANT_DIGITS) {
    throw new AmountError(
      'imprecise_number',
      `amount has more than ${MAX_NUMBER_SIGNIFICANT_DIGITS} significant digits and cannot be read exactly from a JSON number; send it as a string`,
    );
  }
  return text;
}

function decimalTextToUnits(text: string, decimals: number): bigint {
  if (text.length > MAX_INPUT_LENGTH) throw new AmountError('too_large', 'amount has too many digits');
  if (text.startsWith('-') && isDecimalText(text.slice(1))) {
    throw new AmountError('negative', 'amount must not be negative');
  }
  const match = DECIMAL_TEXT.exec(text);
  const integerPart = match?.[1] ?? '';
  const fractionPart = match?.[2] ?? '';
  if (!match || (integerPart === '' && fractionPart === '')) {
    if (isExponentText(text)) throw new AmountError('exponent', EXPONENT_MESSAGE);
    throw new AmountError('not_decimal', 'amount is not a decimal number');
  }

  // value = 0.<digits> x 10^point once leading zeros are gone; trailing zeros carry no value.
  let digits = integerPart + fractionPart;
  let point = integerPart.length;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leadingZeros).replace(/0+$/, '');
  point -= leadingZeros;
  if (digits === '') return 0n;

  if (point > MAX_INTEGER_DIGITS) throw new AmountError('too_large', 'amount is too large');
  const fractionDigits = digits.length - point;
  if (fractionDigits > decimals) {
    throw new AmountError('too_many_decimals', tooManyDecimalsMessage(decimals));
  }
  return BigInt(digits) * 10n ** BigInt(decimals - fractionDigits);
}

function isDecimalText(text: string): boolean {
  const match = DECIMAL_TEXT.exec(text);
  return (match !== null && (match[1] !== '' || (match[2] ?? '') !== '')) || isExponentText(text);
}

/** A decimal with digits before its exponent marker ("1e1", ".5E-3"); "e3" alone is no number at all. */
function isExponentText(text: string): boolean {
  return EXPONENT_TEXT.test(text) && /^\.?[0-9]/.test(text);
}

function tooManyDecimalsMessage(decimals: number): string {
  if (decimals === 0) return 'amount must be a whole number';
  return `amount has more than ${decimals} decimal${decimals === 1 ? '' : 's'}`;
}
