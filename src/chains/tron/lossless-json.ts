/**
 * JSON.parse that keeps integers beyond 2^53 exact. java-tron prints int64 fields (balances, TRC10
 * amounts and supplies) as bare JSON numbers, and a TRX balance above ~9 billion TRX or a TRC10
 * supply of 10^18 would silently round through a double.
 */

/** Integers with fewer digits than this are always safe, so only longer ones are examined. */
const MIN_UNSAFE_DIGITS = 16;

/**
 * Sentinel that marks a quoted big integer. It starts with an escaped NUL, which a JSON string can
 * only hold when written as `\u0000`, so the parsed marker cannot come from an ordinary node string.
 */
const MARKER = '\u0000bigint:';
const MARKER_ESCAPED = '\\u0000bigint:';

/**
 * Parses `text` like JSON.parse, except that integer literals outside Number's safe range become
 * bigint. Safe integers stay numbers, so callers read both through `toBigInt`.
 */
export function parseJsonLossless(text: string): unknown {
  let out = '';
  let copiedUpTo = 0;
  let found = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string literal, honouring escapes, so digits inside strings are left alone.
      i++;
      while (i < length) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) {
          i++;
          break;
        } else i++;
      }
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < length && isNumberChar(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      if (
        token.length >= MIN_UNSAFE_DIGITS &&
        /^-?[0-9]+$/.test(token) &&
        !Number.isSafeInteger(Number(token))
      ) {
        out += `${text.slice(copiedUpTo, i)}"${MARKER_ESCAPED}${token}"`;
        copiedUpTo = end;
        found = true;
      }
      i = end;
      continue;
    }
    i++;
  }
  if (!found) return JSON.parse(text);
  out += text.slice(copiedUpTo);
  return JSON.parse(out, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARKER) ? BigInt(value.slice(MARKER.length)) : value,
  );
}

function isNumberChar(c: number): boolean {
  // digits, '.', 'e', 'E', '+', '-'
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}
