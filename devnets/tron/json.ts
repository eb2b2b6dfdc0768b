// JSON with exact integers: java-tron reads int64 through BigDecimal, so integers must not pass
// through float64 on the way in or out. Integers parse to bigint; bigint prints as digits.

export type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

export class JsonSyntaxError extends Error {}

export function parseJson(text: string): Json {
  let pos = 0;
  const ws = () => {
    while (pos < text.length && ' \t\r\n'.includes(text[pos] as string)) pos++;
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`${what} at position ${pos}`);
  };
  const value = (): Json => {
    ws();
    const ch = text[pos];
    if (ch === '{') {
      pos++;
      const obj: { [key: string]: Json } = {};
      ws();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expected key');
        const key = str();
        ws();
        if (text[pos] !== ':') fail('expected colon');
        pos++;
        obj[key] = value();
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return obj;
        }
        fail('expected , or }');
      }
    }
    if (ch === '[') {
      pos++;
      const arr: Json[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return arr;
        }
        fail('expected , or ]');
      }
    }
    if (ch === '"') return str();
    if (text.startsWith('true', pos)) {
      pos += 4;
      return true;
    }
    if (text.startsWith('false', pos)) {
      pos += 5;
      return false;
    }
    if (text.startsWith('null', pos)) {
      pos += 4;
      return null;
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!m) return fail('unexpected token');
    pos += m[0].length;
    return m[2] || m[3] ? Number(m[0]) : BigInt(m[0]);
  };
  const str = (): string => {
    const start = pos;
    pos++;
    let escaped = false;
    while (pos < text.length) {
      const c = text[pos];
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') {
        pos++;
        return JSON.parse(text.slice(start, pos)) as string;
      }
      pos++;
    }
    return fail('unterminated string');
  };
  const result = value();
  ws();
  if (pos !== text.length) fail('trailing characters');
  return result;
}

export function stringifyJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
