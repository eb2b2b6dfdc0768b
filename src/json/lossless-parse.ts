/**
 * The one JSON parser that keeps numbers exact. JSON allows numbers of any size and precision, but
 * JSON.parse turns each into a double, and Node 20 gives no access to the source text: java-tron's int64
 * balances beyond 2^53, CoinGecko's 17-digit prices and a request's `1.0000000000000000001` would all
 * arrive rounded. Here each number literal is handed, as written, to the caller's reader; everything
 * else reads as JSON.parse reads it. One parser serves node answers, price providers and request bodies;
 * each differs only in its `JsonReadRules` (the presets below).
 *
 * How: one pass in JavaScript checks the text (its errors, nesting, keys) and reads the number literals
 * without building anything; the engine's JSON.parse then builds the value, from a text in which the
 * numbers the reader does not keep as doubles are written as strings (their values, through a reviver,
 * only when the reader makes something else of them, as bigints). Strings, numbers and keys cost two to
 * five times less so than when the parser built them itself; a text of empty objects costs more. What
 * bounds the time a request body takes is its route's size limit and the cap on values (`maxValues`).
 * (Node 22's reviver `context.source` would give the literals to JSON.parse's reviver; Node 20 has none.)
 */

/** Text that is not JSON; the message says where and why. A SyntaxError, as JSON.parse throws. */
export class JsonSyntaxError extends SyntaxError {
  override readonly name = 'JsonSyntaxError';
}

/** Valid JSON, but more values than the rules allow: refused before any is built. */
export class TooManyJsonValuesError extends Error {
  override readonly name = 'TooManyJsonValuesError';

  constructor(readonly maxValues: number) {
    super(`The JSON text holds more than ${maxValues} values.`);
  }
}

/** Valid JSON, but a key given twice: which value was meant cannot be known, so neither is taken. */
export class DuplicateKeyError extends Error {
  override readonly name = 'DuplicateKeyError';

  constructor(readonly key: string) {
    super(`The ${key} field is given more than once.`);
  }
}

export interface JsonReadRules {
  /** What a number becomes, given its literal exactly as written (valid JSON number grammar). */
  readonly number: (literal: string) => unknown;
  /**
   * The reader gives an integer literal of at most 15 digits back as the double JSON.parse makes of it
   * (always exact), so such literals need not be handed to it: most numbers in most texts, read for free.
   */
  readonly shortIntegersAreNumbers?: boolean;
  /** Refuse a key given twice in one object, instead of keeping the last as JSON.parse does. */
  readonly rejectDuplicateKeys: boolean;
  /**
   * Refuse `__proto__` and `constructor.prototype` keys (as Fastify's own parser does), instead of
   * keeping them as plain own properties as JSON.parse does.
   */
  readonly rejectPrototypeKeys: boolean;
  /** Deepest nesting of arrays and objects accepted; deeper text is refused, not a stack overflow. */
  readonly maxDepth: number;
  /**
   * Most values (each object, array, string, number, true, false, null) in the text. Building a value
   * costs far more than reading a byte, so this, not the text's length, bounds the time a parse takes.
   */
  readonly maxValues?: number;
}

/** Parses `text` as one JSON value under `rules`. @throws JsonSyntaxError, DuplicateKeyError, TooManyJsonValuesError */
export function parseJsonLossless(text: string, rules: JsonReadRules): unknown {
  const scan = scanJson(text, rules);
  if (scan === null) return JSON.parse(text);
  const { edited, replacements, placeholderPrefix } = scan;
  if (replacements.length === 0) return JSON.parse(edited);
  // Placeholders (strings no string of the text starts with) become the reader's values.
  return JSON.parse(edited, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(placeholderPrefix)
      ? replacements[Number(value.slice(placeholderPrefix.length))]
      : value,
  );
}

/** Nesting far beyond any node or provider answer, still well inside the call stack. */
const ANSWER_MAX_DEPTH = 512;

/**
 * Node answers (java-tron prints int64 balances, amounts and supplies as bare numbers): integers beyond
 * Number's safe range become bigint, every other number reads as JSON.parse reads it, so callers take
 * both through one int64 reader.
 */
export function parseJsonWithBigInts(text: string): unknown {
  return parseJsonLossless(text, {
    number: bigIntBeyondSafeRange,
    shortIntegersAreNumbers: true,
    rejectDuplicateKeys: false,
    rejectPrototypeKeys: false,
    maxDepth: ANSWER_MAX_DEPTH,
  });
}

/** Price provider answers: every number stays its exact text, a string, for decimal arithmetic. */
export function parseJsonNumbersAsText(text: string): unknown {
  return parseJsonLossless(text, {
    number: (literal) => literal,
    rejectDuplicateKeys: false,
    rejectPrototypeKeys: false,
    maxDepth: ANSWER_MAX_DEPTH,
  });
}

/**
 * The most values a request body may hold: the widest body a route takes (a signed Tron transaction with
 * its decoded `raw_data`, a keystore) holds a few hundred. With it, no body within the size limits holds
 * the event loop more than a few milliseconds, whatever its shape.
 */
export const REQUEST_MAX_JSON_VALUES = 4_096;

/**
 * Request bodies: a number stays a number when a double writes it back as sent, else it stays its text
 * (lost digits, exponent or trailing-zero forms), which the amount module parses exactly and schema
 * coercion turns back into a number where a field is numeric. Duplicate and prototype keys are refused,
 * and nesting is kept shallow and values few: the body comes from anyone.
 */
export function parseJsonKeepingNumberText(text: string): unknown {
  return parseJsonLossless(text, {
    number: numberUnlessInexact,
    shortIntegersAreNumbers: true,
    rejectDuplicateKeys: true,
    rejectPrototypeKeys: true,
    maxDepth: 64,
    maxValues: REQUEST_MAX_JSON_VALUES,
  });
}

function bigIntBeyondSafeRange(literal: string): number | bigint {
  const value = Number(literal);
  return Number.isSafeInteger(value) || !INTEGER.test(literal) ? value : BigInt(literal);
}

function numberUnlessInexact(literal: string): number | string {
  const value = Number(literal);
  return String(value) === literal ? value : literal;
}

const INTEGER = /^-?\d+$/;

/** Digits in an integer literal that a double always holds exactly (2^53 has 16). */
const SHORT_INTEGER_DIGITS = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const IN_ARRAY = 1;
/** Distinct literals whose reading is remembered within one text. */
const READ_BEFORE_LIMIT = 1024;
const IN_OBJECT = 2;

/** Where a string's plain run ends: its closing quote, an escape, or a control character (refused). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the control characters JSON refuses is the point.
const STRING_STOP = /["\\\u0000-\u001f]/g;
/** Characters of a string read one by one before STRING_STOP takes over. */
const LONG_STRING = 32;

/** The characters that may follow a backslash in a JSON string, besides `u`. */
const ESCAPABLE = new Uint8Array(128);
for (const c of '"\\/bfnrt') ESCAPABLE[c.charCodeAt(0)] = 1;

/** What JSON.parse must read instead of the text: some numbers written as strings. */
interface EditedText {
  edited: string;
  /** The reader's values that are neither a double nor the literal, each written as a placeholder. */
  replacements: unknown[];
  placeholderPrefix: string;
}

/** The keys of an object seen so far: none, one (most objects), or a set. */
type Keys = Set<string> | string[] | string | null;

/** Keys of an object held in a list before a set: a list is cheaper to make and to search while short. */
const KEYS_IN_A_LIST = 16;

function fail(at: number, problem: string): never {
  throw new JsonSyntaxError(`Malformed JSON at position ${at}: ${problem}`);
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function hasKey(keys: Keys, key: string): boolean {
  if (keys === null || typeof keys === 'string') return keys === key;
  return Array.isArray(keys) ? keys.includes(key) : keys.has(key);
}

function withKey(keys: Keys, key: string): Keys {
  if (keys === null) return key;
  if (typeof keys === 'string') return [keys, key];
  if (Array.isArray(keys)) {
    if (keys.length < KEYS_IN_A_LIST) {
      keys.push(key);
      return keys;
    }
    return new Set([...keys, key]);
  }
  keys.add(key);
  return keys;
}

/** What the scan keeps about strings and keys, and the readers of both. */
class ScanState {
  /** The text of the last string read with `decode`. */
  decoded = '';
  /** The longest run of `\u0000` escapes any string of the text starts with. */
  leadingNuls = 0;
  /** Per open object (when keys are watched): the keys seen, and the key whose value is being read. */
  readonly keysAt: Keys[] = [];
  readonly keyAt: string[] = [];

  constructor(
    readonly text: string,
    readonly rules: JsonReadRules,
    readonly watchKeys: boolean,
  ) {}

  /** Checks the string at `start`; returns its end, and its text when `decode` asks for it. */
  string(start: number, decode: boolean): number {
    const { text } = this;
    let j = start + 1;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        if (!escaped && j === start + 1) {
          let run = 0;
          while (text.startsWith('\\u0000', j + run * 6)) run++;
          if (run > this.leadingNuls) this.leadingNuls = run;
        }
        escaped = true;
        const e = text.charCodeAt(j + 1);
        if (e === 0x75) {
          if (
            !isHex(text.charCodeAt(j + 2)) ||
            !isHex(text.charCodeAt(j + 3)) ||
            !isHex(text.charCodeAt(j + 4)) ||
            !isHex(text.charCodeAt(j + 5))
          ) {
            fail(start, 'invalid string');
          }
          j += 6;
        } else if (ESCAPABLE[e] === 1) j += 2;
        else if (Number.isNaN(e)) fail(start, 'unterminated string');
        else fail(start, 'invalid string');
      } else if (c >= 0x20) {
        j++;
        // Past a few characters, the engine's regex finds the next quote, backslash or control character
        // far faster than a loop (a broadcast's hex is one string of a million).
        if (j - start > LONG_STRING) {
          STRING_STOP.lastIndex = j;
          j = STRING_STOP.test(text) ? STRING_STOP.lastIndex - 1 : text.length;
        }
      } else if (Number.isNaN(c)) fail(start, 'unterminated string');
      else fail(start, 'invalid string');
    }
    if (decode) {
      const body = text.slice(start + 1, j);
      this.decoded = escaped ? (JSON.parse(`"${body}"`) as string) : body;
    }
    return j + 1;
  }

  /** Reads a key at `at` (after `{` or `,`) of the object open at `depth`, and its colon; returns where its value starts. */
  key(at: number, depth: number): number {
    const { text, rules, watchKeys, keysAt, keyAt } = this;
    if (text.charCodeAt(at) !== QUOTE) fail(at, 'expected a property name');
    let j = this.string(at, watchKeys);
    if (watchKeys) {
      const name = this.decoded;
      if (name === '__proto__' && rules.rejectPrototypeKeys) fail(j, 'forbidden property name __proto__');
      const keys = keysAt[depth - 1] ?? null;
      if (rules.rejectDuplicateKeys && hasKey(keys, name)) throw new DuplicateKeyError(name);
      keysAt[depth - 1] = withKey(keys, name);
      keyAt[depth - 1] = name;
    }
    j = skipSpace(text, j);
    if (text.charCodeAt(j) !== COLON) fail(j, 'expected ":"');
    return skipSpace(text, j + 1);
  }
}

/**
 * Checks `text` as the JSON grammar and `rules` demand (the errors and positions say what is wrong),
 * building nothing, in one loop with its own stack. Returns null when JSON.parse reads the text as the
 * rules would, else the text to give it: a number the reader keeps as its literal written as that string,
 * any other value the reader makes of a number as a placeholder string.
 */
function scanJson(text: string, rules: JsonReadRules): EditedText | null {
  const { maxDepth, shortIntegersAreNumbers } = rules;
  const maxValues = rules.maxValues ?? Number.POSITIVE_INFINITY;
  let values = 0;
  const watchKeys = rules.rejectDuplicateKeys || rules.rejectPrototypeKeys;
  // IN_ARRAY or IN_OBJECT per open container: a plain array, as most texts are small and shallow.
  const containers: number[] = [];
  const state = new ScanState(text, rules, watchKeys);
  const { keysAt, keyAt } = state;
  let pieces: string[] | null = null;
  let copiedTo = 0;
  const replacements: unknown[] = [];
  const placeholderIndexes: number[] = [];
  let readBefore: Map<string, unknown> | null = null;
  let depth = 0;
  let i = skipSpace(text, 0);

  for (;;) {
    // A value starts at i.
    if (depth > maxDepth) fail(i, 'nested too deeply');
    if (++values > maxValues) throw new TooManyJsonValuesError(maxValues);
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      const j = skipSpace(text, i + 1);
      if (text.charCodeAt(j) === close) i = j + 1;
      else {
        containers[depth++] = c === OPEN_BRACE ? IN_OBJECT : IN_ARRAY;
        if (c === OPEN_BRACE) {
          if (watchKeys) keysAt[depth - 1] = null;
          i = state.key(j, depth);
        } else i = j;
        continue;
      }
    } else if (c === QUOTE) i = state.string(i, false);
    else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      if (!text.startsWith(word, i)) fail(i, 'unexpected token');
      i += word.length;
    } else {
      // A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the longest that matches.
      const start = i;
      const negative = c === MINUS;
      if (negative) i++;
      const first = text.charCodeAt(i);
      if (first === ZERO) i++;
      else if (first > ZERO && first <= NINE) {
        i++;
        while (isDigit(text.charCodeAt(i))) i++;
      } else fail(start, 'unexpected token');
      let integer = true;
      if (text.charCodeAt(i) === 0x2e && isDigit(text.charCodeAt(i + 1))) {
        integer = false;
        i += 2;
        while (isDigit(text.charCodeAt(i))) i++;
      }
      const e = text.charCodeAt(i);
      if (e === 0x65 || e === 0x45) {
        let j = i + 1;
        const sign = text.charCodeAt(j);
        if (sign === 0x2b || sign === MINUS) j++;
        if (isDigit(text.charCodeAt(j))) {
          integer = false;
          i = j + 1;
          while (isDigit(text.charCodeAt(i))) i++;
        }
      }
      // "-0" is short, but a double writes it back as "0": a reader that keeps inexact text keeps it.
      const short =
        integer && i - start - (negative ? 1 : 0) <= SHORT_INTEGER_DIGITS && !(negative && first === ZERO);
      if (!(short && shortIntegersAreNumbers)) {
        const literal = text.slice(start, i);
        // A text may repeat one literal many times; a reader's number or text for it is read once.
        const known = readBefore?.get(literal);
        const value = known === undefined ? rules.number(literal) : known;
        if (known === undefined && (typeof value === 'number' || value === literal)) {
          readBefore ??= new Map();
          if (readBefore.size < READ_BEFORE_LIMIT) readBefore.set(literal, value);
        }
        if (!(typeof value === 'number' && Object.is(value, Number(literal)))) {
          pieces ??= [];
          pieces.push(text.slice(copiedTo, start));
          copiedTo = i;
          if (value === literal) pieces.push(`"${literal}"`);
          else {
            placeholderIndexes.push(pieces.length);
            pieces.push(String(replacements.length));
            replacements.push(value);
          }
        }
      }
    }
    // A value ended at i: what follows it in its container, closing containers that end here.
    for (;;) {
      if (depth === 0) {
        i = skipSpace(text, i);
        if (i !== text.length) fail(i, 'unexpected text after the JSON value');
        if (pieces === null) return null;
        pieces.push(text.slice(copiedTo));
        const placeholderPrefix = '\u0000'.repeat(state.leadingNuls + 1);
        for (const at of placeholderIndexes) {
          pieces[at] = JSON.stringify(`${placeholderPrefix}${pieces[at]}`);
        }
        return { edited: pieces.join(''), replacements, placeholderPrefix };
      }
      i = skipSpace(text, i);
      const next = text.charCodeAt(i++);
      if (containers[depth - 1] === IN_ARRAY) {
        if (next === COMMA) {
          i = skipSpace(text, i);
          break;
        }
        if (next !== CLOSE_BRACKET) fail(i, 'expected "," or "]"');
        depth--;
      } else {
        if (next === COMMA) {
          i = state.key(skipSpace(text, i), depth);
          break;
        }
        if (next !== CLOSE_BRACE) fail(i, 'expected "," or "}"');
        depth--;
        if (watchKeys && rules.rejectPrototypeKeys && depth > 0 && containers[depth - 1] === IN_OBJECT) {
          if (keyAt[depth - 1] === 'constructor' && hasKey(keysAt[depth] ?? null, 'prototype')) {
            fail(i, 'forbidden property constructor.prototype');
          }
        }
      }
    }
  }
}
