import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringTable } from '../../src/webhooks/string-table.ts';

/** Short strings from a small alphabet collide often; a few carry non-ASCII and astral characters. */
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'c', '0', '1'), maxLength: 4 }),
  fc.string({ unit: fc.constantFrom('x', 'é', '€', '𝄞'), maxLength: 3 }),
);
const operation = fc.record({ release: fc.boolean(), value: text });

describe('StringTable', () => {
  it('counts holders and agrees with a Map of counts after any sequence of acquires and releases', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 400 }), (operations) => {
        const table = new StringTable();
        const held = new Map<string, { entry: number; holders: number }>();
        for (const { release, value } of operations) {
          const current = held.get(value);
          if (release && current !== undefined) {
            table.release(current.entry);
            if (--current.holders === 0) held.delete(value);
            continue;
          }
          const entry = table.acquire(value);
          if (current !== undefined) expect(entry).toBe(current.entry);
          held.set(value, { entry, holders: (current?.holders ?? 0) + 1 });
        }
        expect(table.size).toBe(held.size);
        const entries = new Set<number>();
        for (const [value, { entry }] of held) {
          expect(table.find(value)).toBe(entry);
          expect(table.value(entry)).toBe(value);
          entries.add(entry);
        }
        expect(entries.size).toBe(held.size);
        for (const { value } of operations) if (!held.has(value)) expect(table.find(value)).toBe(-1);
      }),
      { numRuns: 300 },
    );
  });

  it('reuses the number and bytes of a released entry for a string of the same length', () => {
    const table = new StringTable();
    const first = table.acquire('0xaaaa');
    table.acquire('0xbbbb');
    table.release(first);
    expect(table.acquire('0xcccc')).toBe(first);
    expect(table.span).toBe(2);
    expect(table.value(first)).toBe('0xcccc');
    expect(table.find('0xaaaa')).toBe(-1);
  });

  it('keeps a hundred thousand addresses findable through its growth and removals', () => {
    const table = new StringTable();
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
    const entries = Array.from({ length: 100_000 }, (_, i) => table.acquire(address(i)));
    for (let i = 0; i < entries.length; i += 2) table.release(entries[i]!);
    expect(table.size).toBe(50_000);
    for (let i = 0; i < entries.length; i++) {
      expect(table.find(address(i))).toBe(i % 2 === 0 ? -1 : entries[i]);
    }
  });

  it('refuses to release an entry no one holds', () => {
    const table = new StringTable();
    const entry = table.acquire('a');
    table.release(entry);
    expect(() => table.release(entry)).toThrow(/not held/);
    expect(() => table.release(7)).toThrow(/not held/);
  });
});
