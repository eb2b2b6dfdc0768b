import { parseJsonKeepingNumberText } from '../src/json/lossless-parse.ts';
import type { Benchmark } from './types.ts';

const BODY = JSON.stringify({
  from: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  to: 'TVj7RNVHy6thbM7BWdSe9G6gXwKhjhdNZS',
  contractaddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  amount: 125.5,
  password: 'correct horse battery staple',
  transaction: {
    raw_data: { contract: [{ parameter: { value: { amount: 1000000 } } }], expiration: 1700000000000 },
  },
});

function opsPerSecond(parse: (text: string) => unknown, durationMs: number): number {
  const deadline = performance.now() + durationMs;
  let count = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 1000; i++) parse(BODY);
    count += 1000;
  }
  return count / (durationMs / 1000);
}

/** The exact-number JSON parser every request body goes through, against the engine's JSON.parse. */
export const jsonBody: Benchmark = {
  name: 'json body: exact-number parser vs JSON.parse (typical transfer body)',
  async run() {
    opsPerSecond(JSON.parse, 200);
    opsPerSecond(parseJsonKeepingNumberText, 200);
    const baseline = opsPerSecond(JSON.parse, 1500);
    const measured = opsPerSecond(parseJsonKeepingNumberText, 1500);
    return [
      {
        what: 'exact-number JSON parse of a transfer body',
        unit: 'parses/s',
        measured,
        baseline: { what: 'JSON.parse', value: baseline },
      },
    ];
  },
};
