import { describe, expect, it } from 'vitest';
import { chainLibrary, loadedChainLibraries } from '../../src/chains/chain-library.ts';

describe('a chain library loaded on first use', () => {
  it('is imported once, when first awaited, and named among the loaded ones after', async () => {
    let imports = 0;
    const library = chainLibrary('example-library', async () => ({ count: ++imports }));
    expect(imports).toBe(0);
    expect(loadedChainLibraries()).not.toContain('example-library');
    const [first, second] = await Promise.all([library(), library()]);
    expect(first).toBe(second);
    expect(await library()).toBe(first);
    expect(imports).toBe(1);
    expect(loadedChainLibraries()).toContain('example-library');
  });

  it('is tried again after a failed import instead of failing every use', async () => {
    let attempts = 0;
    const library = chainLibrary('flaky-library', async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not there yet');
      return 'loaded';
    });
    await expect(library()).rejects.toThrow('not there yet');
    await expect(library()).resolves.toBe('loaded');
    expect(attempts).toBe(2);
  });
});
