import { describe, expect, it } from 'vitest';
import { IdentityCache } from '../../src/accounts/identity-cache.ts';

describe('identity cache', () => {
  it('answers an entry until it ages out', () => {
    let now = 0;
    const cache = new IdentityCache<string>(1_000, () => now);
    cache.set('token', 'alice', cache.generation);
    now = 999;
    expect(cache.get('token')).toBe('alice');
    now = 1_000;
    expect(cache.get('token')).toBeUndefined();
  });

  it('forgets everything on a change, and keeps no read begun before it', () => {
    const cache = new IdentityCache<string>(1_000, () => 0);
    cache.set('a', 'alice', cache.generation);
    const before = cache.generation;
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    // A read that started before the change answers the old row: it must not be kept.
    cache.set('b', 'bob', before);
    expect(cache.get('b')).toBeUndefined();
    cache.set('b', 'bob', cache.generation);
    expect(cache.get('b')).toBe('bob');
  });

  it('stays bounded under a flood of distinct keys', () => {
    let now = 0;
    const cache = new IdentityCache<number>(1_000, () => now);
    for (let i = 0; i < 10_000; i++) cache.set(`k${i}`, i, cache.generation);
    now = 2_000;
    cache.set('fresh', 1, cache.generation);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('fresh')).toBe(1);
  });
});
