import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../../src/chains/bitcoin/bounded-map.ts';

describe('mapBounded', () => {
  it('keeps the input order and never has more than the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 4, 3, 2, 1, 0, 9, 8], 3, async (n, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // Later items settle first: resolution order differs from input order.
      for (let k = 0; k < n; k++) await Promise.resolve();
      inFlight--;
      return `${i}:${n}`;
    });
    expect(results).toEqual(['0:5', '1:4', '2:3', '3:2', '4:1', '5:0', '6:9', '7:8']);
    expect(most).toBe(3);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const run = mapBounded([0, 1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('boom');
      return n;
    });
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
  });

  it('answers an empty list', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });
});
