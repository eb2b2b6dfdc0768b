/**
 * The one JSON parser that keeps numbers exact. JSON allows numbers of any size and precision, but
 * JSON.parse turns each into a double, and Node 20 gives no access to the source text: java-tron's int64
 * balances beyond 2^53, CoinGecko's 17-digit prices and a request's `1.0000000000000000001` would all
 * arrive rounded. Here each number literal is handed, as written, to the caller's reader; everything
 * else reads as JSON.parse reads it. One parser serves node answers, price providers and request bodies;
 * each differs only in its `JsonReadRules` (the presets below).
 */

/** Text that is not JSON; the message says where and why. A SyntaxError, as JSON.parse throws. */
export class JsonSyntaxError extends SyntaxError {
  override readonly name = 'JsonSyntaxError';
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
  /** Refuse a key given twice in one object, instead of keeping the last as JSON.parse does. */
  readonly rejectDuplicateKeys: boolean;
  /**
   * Refuse `__proto__` and `constructor.prototype` keys (as Fastify's own parser does), instead of
   * keeping them as plain own properties as JSON.parse does.
   */
  readonly rejectPrototypeKeys: boolean;
  /** Deepest nesting of arrays and objects accepted; deeper text is refused, not a stack overflow. */
  readonly maxDepth: number;
}

/** Parses `text` as one JSON value under `rules`. @throws JsonSyntaxError, DuplicateKeyError */
export function parseJsonLossless(text: string, rules: JsonReadRules): unknown {
  const parser = new Parser(text, rules);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.index !== text.length) parser.fail('unexpected text after the JSON value');
  return value;
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
 * Request bodies: a number stays a number when a double writes it back as sent, else it stays its text
 * (lost digits, exponent or trailing-zero forms), which the amount module parses exactly and schema
 * coercion turns back into a number where a field is numeric. Duplicate and prototype keys are refused,
 * and nesting is kept shallow: the body comes from anyone.
 */
export function parseJsonKeepingNumberText(text: string): unknown {
  return parseJsonLossless(text, {
    number: numberUnlessInexact,
    rejectDuplicateKeys: true,
    rejectPrototypeKeys: true,
    maxDepth: 64,
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
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Parser {
  index = 0;

  constructor(
    private readonly text: string,
    private readonly rules: JsonReadRules,
  ) {}

  fail(problem: string): never {
    throw new JsonSyntaxError(`Malformed JSON at position ${this.index}: ${problem}`);
  }

  skipSpace(): void {
    const { text } = this;
    while (this.index < text.length) {
      const c = text.charCodeAt(this.index);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.index++;
    }
  }

  value(depth: number): unknown {
    if (depth > this.rules.maxDepth) this.fail('nested too deeply');
    const c = this.text[this.index];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === 't') return this.literal('true', true);
    if (c === 'f') return this.literal('false', false);
    if (c === 'n') return this.literal('null', null);
    return this.number();
  }

  private object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.index++;
    this.skipSpace();
    if (this.text[this.index] === '}') {
      this.index++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.index] !== '"') this.fail('expected a property name');
      const key = this.string();
      if (key === '__proto__' && this.rules.rejectPrototypeKeys)
        this.fail('forbidden property name __proto__');
      if (this.rules.rejectDuplicateKeys && Object.hasOwn(out, key)) throw new DuplicateKeyError(key);
      this.skipSpace();
      if (this.text[this.index] !== ':') this.fail('expected ":"');
      this.index++;
      this.skipSpace();
      const item = this.value(depth + 1);
      if (
        this.rules.rejectPrototypeKeys &&
        key === 'constructor' &&
        typeof item === 'object' &&
        item !== null &&
        'prototype' in item
      ) {
        this.fail('forbidden property constructor.prototype');
      }
      // Defined, not assigned: assigning `__proto__` would set the object's prototype.
      if (key === '__proto__') {
        Object.defineProperty(out, key, {
          value: item,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else out[key] = item;
      this.skipSpace();
      const next = this.text[this.index++];
      if (next === '}') return out;
      if (next !== ',') this.fail('expected "," or "}"');
    }
  }

  private array(depth: number): unknown[] {
    const out: unknown[] = [];
    this.index++;
    this.skipSpace();
    if (this.text[this.index] === ']') {
      this.index++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      out.push(this.value(depth + 1));
      this.skipSpace();
      const next = this.text[this.index++];
      if (next === ']') return out;
      if (next !== ',') this.fail('expected "," or "]"');
    }
  }

  private string(): string {
    const start = this.index;
    let i = start + 1;
    const { text } = this;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) break;
      i += c === 0x5c ? 2 : 1;
    }
    this.index = i + 1;
    try {
      // Escapes and control characters are checked by the engine on the isolated token.
      return JSON.parse(text.slice(start, i + 1)) as string;
    } catch {
      this.index = start;
      return this.fail('invalid string');
    }
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.index)) this.fail('unexpected token');
    this.index += word.length;
    return value;
  }

  private number(): unknown {
    NUMBER.lastIndex = this.index;
    const match = NUMBER.exec(this.text);
    if (!match) return this.fail('unexpected token');
    this.index += match[0].length;
    return this.rules.number(match[0]);
  }
}
