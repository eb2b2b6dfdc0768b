/**
 * JSON text that can hold exact numbers. JSON allows a number of any precision, but JSON.stringify writes
 * doubles only (and Node 20 has no JSON.rawJSON): an amount of 0.123456789012345678 would go out as
 * 0.12345678901234568. A `JsonNumber` carries the exact literal and `toJsonText` writes it as it is.
 */

/** JSON's number grammar (RFC 8259). */
const NUMBER_LITERAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** A JSON number kept as its exact literal text. */
export class JsonNumber {
  readonly literal: string;

  constructor(literal: string) {
    if (!NUMBER_LITERAL.test(literal)) throw new RangeError('not a JSON number literal');
    this.literal = literal;
  }
}

/**
 * JSON text of a value made of null, booleans, finite numbers, strings, `JsonNumber`s, arrays and plain
 * objects; object properties that are undefined are left out, as JSON.stringify does. Anything else
 * (a bigint, a Date, NaN, a class instance) throws: it has no one right JSON form, and a wrong guess
 * here would be signed and sent.
 */
export function toJsonText(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumber) return value.literal;
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('a JSON number must be finite');
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? arrayText(value) : objectText(value);
    default:
      throw new TypeError(`${typeof value} has no JSON form`);
  }
}

function arrayText(items: unknown[]): string {
  return `[${items.map((item) => toJsonText(item)).join(',')}]`;
}

function objectText(value: object): string {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`${value.constructor?.name ?? 'this object'} has no JSON form here`);
  }
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${toJsonText(member)}`);
  }
  return `{${members.join(',')}}`;
}
