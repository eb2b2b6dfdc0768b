/**
 * A JSON parser that keeps the exact text of numbers a double cannot hold as written.
 *
 * `JSON.parse('{"amount": 1.0000000000000000001}')` silently yields 1, and money must never be rounded
 * on the way in. Here a number whose shortest double text differs from what was sent (lost digits,
 * exponent or trailing-zero forms) stays a string of its original text; the amount module parses that
 * exactly, and schema coercion turns it back into a number where a field is numeric.
 * It also refuses `__proto__` and `constructor.prototype` keys, as Fastify's own parser does, and a key
 * given twice in one object.
 */
export class JsonSyntaxError extends Error {}

/** Valid JSON, but a key given twice: which value was meant cannot be known, so neither is taken. */
export class DuplicateKeyError extends Error {
  constructor(readonly key: string) {
    super(`The ${key} field is given more than once.`);
  }
}

const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseJsonKeepingNumberText(text: string): unknown {
  const parser = new Parser(text);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.index !== text.length) parser.fail('unexpected text after the JSON value');
  return value;
}

class Parser {
  index = 0;

  constructor(private readonly text: string) {}

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
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
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
      if (key === '__proto__') this.fail('forbidden property name __proto__');
      if (Object.hasOwn(out, key)) throw new DuplicateKeyError(key);
      this.skipSpace();
      if (this.text[this.index] !== ':') this.fail('expected ":"');
      this.index++;
      this.skipSpace();
      const item = this.value(depth + 1);
      if (key === 'constructor' && typeof item === 'object' && item !== null && 'prototype' in item) {
        this.fail('forbidden property constructor.prototype');
      }
      out[key] = item;
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

  private number(): number | string {
    NUMBER.lastIndex = this.index;
    const match = NUMBER.exec(this.text);
    if (!match) return this.fail('unexpected token');
    const raw = match[0];
    this.index += raw.length;
    const value = Number(raw);
    return String(value) === raw ? value : raw;
  }
}
