// The JSON that carries devnet calls between the test workers and the process that owns the shared
// devnets: bigints (amounts, block numbers) travel as {"$bigint": "<decimal>"} and come back as bigints.

const BIGINT_TAG = '$bigint';

export function encodeWire(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? { [BIGINT_TAG]: item.toString() } : item,
  );
}

export function decodeWire(text: string): unknown {
  return JSON.parse(text, (_key, item: unknown) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const tagged = Object.entries(item);
      if (tagged.length === 1 && tagged[0]![0] === BIGINT_TAG && typeof tagged[0]![1] === 'string') {
        return BigInt(tagged[0]![1]);
      }
    }
    return item;
  });
}
