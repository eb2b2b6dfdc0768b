import { describe, expect, it } from 'vitest';
import { AttemptBatches } from '../../src/webhooks/attempt-batches.ts';

describe('AttemptBatches', () => {
  it('writes the attempts recorded in one turn as one batch, and each learns its own answer', async () => {
    const batches: string[][] = [];
    const records = new AttemptBatches<string>(async (attempts) => {
      batches.push([...attempts]);
      return attempts.map((a) => a !== 'lapsed');
    });
    const answers = await Promise.all(['a', 'lapsed', 'c'].map((id) => records.record(id)));
    expect(batches).toEqual([['a', 'lapsed', 'c']]);
    expect(answers).toEqual([true, false, true]);
  });

  it('gathers what finishes during a write into the next batch', async () => {
    const batches: string[][] = [];
    let release: () => void = () => {};
    const records = new AttemptBatches<string>(async (attempts) => {
      batches.push([...attempts]);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return attempts.map(() => true);
    });
    const first = records.record('a');
    await new Promise((resolve) => setImmediate(resolve));
    const later = [records.record('b'), records.record('c')];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a']]);
    release();
    await Promise.all([first, ...later]);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });

  it('after a failed batch writes its attempts one by one, so only the bad one fails', async () => {
    const batches: string[][] = [];
    const records = new AttemptBatches<string>(async (attempts) => {
      batches.push([...attempts]);
      if (attempts.some((a) => a === 'bad')) throw new Error('cannot store this one');
      return attempts.map(() => true);
    });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((id) => records.record(id)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('while more answers are expected, waits a moment so that they share the batch', async () => {
    const batches: string[][] = [];
    let expected = 2;
    const records = new AttemptBatches<string>(
      async (attempts) => {
        batches.push([...attempts]);
        return attempts.map(() => true);
      },
      { moreExpected: () => expected > 0 },
    );
    const first = records.record('a');
    await new Promise((resolve) => setImmediate(resolve));
    expected = 0;
    const second = records.record('b');
    await Promise.all([first, second]);
    expect(batches).toEqual([['a', 'b']]);
  });

  it('writes up to `parallel` batches at once, for a database that commits several at a time', async () => {
    const batches: string[][] = [];
    const releases: (() => void)[] = [];
    const records = new AttemptBatches<string>(
      async (attempts) => {
        batches.push([...attempts]);
        await new Promise<void>((resolve) => releases.push(resolve));
        return attempts.map(() => true);
      },
      { parallel: 2 },
    );
    const written = [records.record('a')];
    await new Promise((resolve) => setImmediate(resolve));
    written.push(records.record('b'));
    await new Promise((resolve) => setImmediate(resolve));
    written.push(records.record('c'));
    await new Promise((resolve) => setImmediate(resolve));
    // Two batches under way; the third waits for one of them to end.
    expect(batches).toEqual([['a'], ['b']]);
    releases[0]!();
    await written[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a'], ['b'], ['c']]);
    for (const release of releases.slice(1)) release();
    expect(await Promise.all(written)).toEqual([true, true, true]);
  });
});
