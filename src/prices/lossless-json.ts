/**
 * JSON.parse turns every number into a double, so CoinGecko's `67187.33` or a 17-digit 24h change
 * would reach us already rounded. Node 20 has no JSON.parse source-text access, so this wraps each
 * number token in quotes first: the parsed value then holds the exact digits as a string.
 */

/** Parses JSON text with every number kept as its exact source text (a string). */
export function parseJsonNumbersAsText(text: string): unknown {
  return JSON.parse(quoteNumbers(text));
}

/** Rewrites number tokens outside strings as string literals; everything else is copied as is. */
function quoteNumbers(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '"') {
      // Skip the whole string literal, honouring escapes, so digits inside strings stay untouched.
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      let end = i + 1;
      while (end < text.length && NUMBER_CHAR.test(text[end]!)) end += 1;
      parts.push(text.slice(copied, i), '"', text.slice(i, end), '"');
      copied = end;
      i = end;
    } else {
      i += 1;
    }
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

const NUMBER_CHAR = /[0-9eE.+-]/;
