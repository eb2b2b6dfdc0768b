import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** test/vectors holds typed copies of the shared real-data vectors; they must never drift from the originals. */
describe('vector copies', () => {
  const copies = new URL('../vectors/', import.meta.url);
  const shared = new URL('../../../shared/vectors/', import.meta.url);

  it.runIf(existsSync(shared))('equal the shared originals', () => {
    const names = readdirSync(copies).filter((name) => name.endsWith('.json'));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const copy = JSON.parse(readFileSync(new URL(name, copies), 'utf8'));
      const original = JSON.parse(readFileSync(new URL(name, shared), 'utf8'));
      expect(copy, name).toEqual(original);
    }
  });
});
