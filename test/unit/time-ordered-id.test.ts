import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/store/time-ordered-id.ts';

describe('timeOrderedId', () => {
  it('is a version 7 UUID whose first 48 bits are the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids of later milliseconds after earlier ones, and never repeats', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 7)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 7; i < ids.length; i += 7) expect(ids[i - 1]! < ids[i]!).toBe(true);
  });
});
