// JSON as the nodes write it: satoshi counts (bigint) as bare integers, and BTC amounts as decimal numbers
// with exactly 8 places, written from their bigint satoshis (never through a float).

/** A number written as given: `Btc.of(150n)` is written 0.00000150, as Bitcoin Core writes amounts. */
export class Btc {
  private constructor(readonly text: string) {}
  static of(sats: bigint): Btc {
    const negative = sats < 0n;
    const abs = negative ? -sats : sats;
    const whole = abs / 100_000_000n;
    const frac = (abs % 100_000_000n).toString().padStart(8, '0');
    return new Btc(`${negative ? '-' : ''}${whole}.${frac}`);
  }
}

/**
 * A float as Bitcoin Core writes it (UniValue: 16 significant digits), where JavaScript would write the
 * shortest round-trip text (regtest's difficulty: 4.656542373906925e-10, not 4.6565423739069247e-10).
 */
export class CoreDouble {
  private constructor(readonly text: string) {}
  static of(n: number): CoreDouble {
    return new CoreDouble(String(Number(n.toPrecision(16))));
  }
}

export type Json =
  | null
  | boolean
  | number
  | string
  | bigint
  | Btc
  | CoreDouble
  | Json[]
  | { [key: string]: Json | undefined };

export function stringifyJson(value: Json | undefined): string {
  if (value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Btc || value instanceof CoreDouble) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => stringifyJson(v)).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** Satoshis of a BTC amount given as a JSON number or string (through its decimal text, at most 8 places). */
export function satsOfBtc(value: unknown): bigint | null {
  const text = typeof value === 'number' ? numberText(value) : typeof value === 'string' ? value : null;
  if (text === null) return null;
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1] as string) * 100_000_000n + BigInt((m[2] ?? '').padEnd(8, '0'));
}

// A JSON number's shortest decimal text, without exponent (0.0001 may print as 1e-4).
function numberText(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const text = String(n);
  if (!text.includes('e')) return text;
  return n.toFixed(8).replace(/\.?0+$/, '');
}
