import { parseJsonKeepingNumberText, parseJsonWithBigInts } from '../src/json/lossless-parse.ts';
import type { Benchmark, Measurement } from './types.ts';

const TRANSFER_BODY = JSON.stringify({
  from: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  to: 'TVj7RNVHy6thbM7BWdSe9G6gXwKhjhdNZS',
  contractaddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  amount: 125.5,
  password: 'correct horse battery staple',
  transaction: {
    raw_data: { contract: [{ parameter: { value: { amount: 1000000 } } }], expiration: 1700000000000 },
  },
});

/** A signed transaction to broadcast at the largest route limit: one long hex string. */
const BROADCAST_BODY = JSON.stringify({ rawtx: 'ab'.repeat(500_000) });

/** A node answer: a block of transfers with int64 amounts, some beyond 2^53. */
const NODE_ANSWER = JSON.stringify({
  transactions: Array.from({ length: 2_000 }, (_, i) => ({
    txID: 'f'.repeat(64),
    amount: i,
    fee: 1_000_000 + i,
    ok: true,
    memo: null,
  })),
}).replace(/"fee":10000(\d\d)/g, '"fee":12345678901234567$1');

/** A request body at the default limit whose numbers a double would round: each kept as its text. */
const INEXACT = `[${'1.50,'.repeat((16 * 1_024) / 5 - 1)}1.50]`;

/** Shapes whose cost is in their values, each 64 KiB, for the parsers alone (no value limit). */
const KiB = 1_024;
const SHAPES: Record<string, string> = {
  '[{},{},...]': `[${'{},'.repeat((64 * KiB) / 3)}{}]`,
  'many keys': `{${Array.from({ length: (64 * KiB) / 12 }, (_, i) => `"k${i}":0`).join(',')}}`,
  'numbers a double rounds': `[${'1.50,'.repeat((64 * KiB) / 5)}1.50]`,
};

function opsPerSecond(parse: (text: string) => unknown, text: string, durationMs: number): number {
  const deadline = performance.now() + durationMs;
  let count = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 10; i++) parse(text);
    count += 10;
  }
  return count / (durationMs / 1000);
}

function against(what: string, parse: (text: string) => unknown, text: string): Measurement {
  opsPerSecond(JSON.parse, text, 100);
  opsPerSecond(parse, text, 100);
  const baseline = opsPerSecond(JSON.parse, text, 700);
  const measured = opsPerSecond(parse, text, 700);
  return { what, unit: 'parses/s', measured, baseline: { what: 'JSON.parse', value: baseline } };
}

/**
 * The exact-number JSON parser against the engine's JSON.parse on the same texts: a request body, a
 * broadcast at the largest limit, a node answer, and the shapes that cost most per byte.
 */
export const jsonBody: Benchmark = {
  name: 'json body: exact-number parser vs JSON.parse',
  async run() {
    return [
      against('exact-number JSON parse of a transfer body', parseJsonKeepingNumberText, TRANSFER_BODY),
      against('exact-number JSON parse of a 1 MB broadcast body', parseJsonKeepingNumberText, BROADCAST_BODY),
      against(
        'exact-number JSON parse of 16 KiB of numbers kept as text',
        parseJsonKeepingNumberText,
        INEXACT,
      ),
      against('int64-exact parse of a node answer (2,000 transfers)', parseJsonWithBigInts, NODE_ANSWER),
      ...Object.entries(SHAPES).map(([shape, text]) =>
        against(`int64-exact parse of 64 KiB of ${shape}`, parseJsonWithBigInts, text),
      ),
    ];
  },
};
