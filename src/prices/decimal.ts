/**
 * A tiny exact decimal for prices and conversions: a bigint coefficient and a power-of-ten scale
 * (value = units / 10^scale). Addition, subtraction and multiplication are exact; division is the one
 * place that rounds, to a documented number of significant digits. No floating point anywhere.
 */

export interface Decimal {
  readonly units: bigint;
  /** Digits after the decimal point; never negative. */
  readonly scale: number;
}

/**
 * Significant digits a quotient keeps (rates, conversion results, cross prices): more than any price
 * source publishes (CoinGecko ~15-17, Binance 8 decimals, Chainlink 8-18 decimals), so the rounding is
 * below the noise of the inputs. Integer digits are never rounded away: a quotient keeps at least its
 * whole units.
 */
export const SIGNIFICANT_DIGITS = 18;

/** Quotients smaller than 10^-MAX_SCALE round to zero: bounds the digits a hostile input can produce. */
const MAX_SCALE = 60;

/** Provider text longer than this is not a price (bounds the bigint work). */
const MAX_TEXT_LENGTH = 100;
/** Largest exponent accepted in scientific notation ("1.2e-7" is what CoinGecko sends for tiny prices). */
const MAX_EXPONENT = 100;

const DECIMAL_TEXT = /^([+-])?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

export const ZERO: Decimal = { units: 0n, scale: 0 };
export const ONE: Decimal = { units: 1n, scale: 0 };
export const HUNDRED: Decimal = { units: 100n, scale: 0 };

/** Exact decimal from text ("67187.33", "-0.39", "1.2e-7", "0.10000000"); null when it is not one. */
export function parseDecimal(text: string): Decimal | null {
  if (text.length === 0 || text.length > MAX_TEXT_LENGTH) return null;
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return null;
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  if (whole === '' && fraction === '') return null;
  const exponent = Number(match[4] ?? '0');
  if (Math.abs(exponent) > MAX_EXPONENT) return null;
  let units = BigInt(whole + fraction);
  if (match[1] === '-') units = -units;
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalize({ units, scale });
}

/** Like parseDecimal, for text that must be a decimal (provider fields); throws with `what` named. */
export function requireDecimal(text: unknown, what: string): Decimal {
  const value = typeof text === 'string' ? parseDecimal(text) : null;
  if (value === null) throw new TypeError(`${what} is not a decimal number`);
  return value;
}

/** Bigint base units with `decimals` decimals (Chainlink answers, parseAmount results). */
export function fromUnits(units: bigint, decimals: number): Decimal {
  return normalize({ units, scale: decimals });
}

/** Plain decimal text, trailing zeros trimmed, never exponent notation: "67187.33", "-0.5", "0". */
export function formatDecimal(value: Decimal): string {
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const whole = digits.slice(0, digits.length - value.scale);
  const fraction = digits.slice(digits.length - value.scale).replace(/0+$/, '');
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return negative && text !== '0' ? `-${text}` : text;
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return normalize({ units: x + y, scale });
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return normalize({ units: x - y, scale });
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return normalize({ units: a.units * b.units, scale: a.scale + b.scale });
}

/** -1, 0 or 1. */
export function compare(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(value: Decimal): boolean {
  return value.units === 0n;
}

export function isPositive(value: Decimal): boolean {
  return value.units > 0n;
}

/**
 * a / b rounded half away from zero to `significant` significant digits, but never coarser than whole
 * units (so 10^30 / 1 stays exact). The quotient is computed from the exact operands in one step, so a
 * chain of conversions should build one fraction and divide once.
 *
 * @throws RangeError when b is zero.
 */
export function divide(a: Decimal, b: Decimal, significant = SIGNIFICANT_DIGITS): Decimal {
  if (b.units === 0n) throw new RangeError('division by zero');
  if (a.units === 0n) return ZERO;
  const negative = a.units < 0n !== b.units < 0n;
  // |a| / |b| = n / d with both scales folded into integers.
  const n = abs(a.units) * 10n ** BigInt(b.scale);
  const d = abs(b.units) * 10n ** BigInt(a.scale);
  const magnitude = floorLog10Ratio(n, d);
  const scale = Math.min(MAX_SCALE, Math.max(0, significant - 1 - magnitude));
  const scaled = n * 10n ** BigInt(scale);
  let quotient = scaled / d;
  // Half away from zero: round up when the remainder is at least half the divisor.
  if ((scaled % d) * 2n >= d) quotient += 1n;
  return normalize({ units: negative ? -quotient : quotient, scale });
}

/** (value - 1) * 100: a ratio of two prices as a percent change. */
export function ratioToPercentChange(ratio: Decimal): Decimal {
  return multiply(subtract(ratio, ONE), HUNDRED);
}

/** floor(log10(n / d)) for positive n and d, exactly. */
function floorLog10Ratio(n: bigint, d: bigint): number {
  let e = n.toString().length - d.toString().length;
  // n/d lies in [10^(e-1), 10^(e+1)): one comparison settles which decade.
  const below = e >= 0 ? n < d * 10n ** BigInt(e) : n * 10n ** BigInt(-e) < d;
  if (below) e -= 1;
  return e;
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

/** Strips trailing zeros from the coefficient, so equal values have equal representations. */
function normalize(value: Decimal): Decimal {
  let { units, scale } = value;
  if (units === 0n) return ZERO;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}
