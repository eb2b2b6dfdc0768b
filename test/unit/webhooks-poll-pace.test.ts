import { describe, expect, it } from 'vitest';
import { FIXED_POLL_MS, nextPollDelay, PollPace } from '../../src/webhooks/poll-pace.ts';

const TRON = 3_000;
const BITCOIN = 600_000;
const T = 1_800_000_000_000;

describe('nextPollDelay', () => {
  it('waits until the next block is due, reading at most every third of a block time before', () => {
    expect(nextPollDelay(T, T + 2_200, TRON, 0)).toBe(800);
    expect(nextPollDelay(T, T + 100, TRON, 0)).toBe(1_000);
    expect(nextPollDelay(T, T + 2_999, TRON, 0)).toBe(1);
  });

  it('reads in short steps once the block is due, growing up to the fixed pace', () => {
    const steps = [0, 1, 2, 3, 4, 5, 40].map((misses) => nextPollDelay(T, T + 3_000, TRON, misses));
    expect(steps).toEqual([50, 100, 200, 400, 500, 500, 500]);
    // Long overdue (a missed slot, or a devnet making blocks on demand): never slower than the fixed pace.
    expect(nextPollDelay(T, T + 60_000, TRON, 2)).toBe(200);
  });

  it('reads in short steps when the newest block came before it was due', () => {
    expect(nextPollDelay(T, T + 100, TRON, 0, true)).toBe(50);
    expect(nextPollDelay(T, T + 100, TRON, 9, true)).toBe(FIXED_POLL_MS);
  });

  it('takes a block time ahead of the clock as now', () => {
    expect(nextPollDelay(T + 60_000, T, TRON, 0)).toBe(1_000);
  });

  it('paces Bitcoin: every 5 s before the due time (blocks come at random), the fixed pace after', () => {
    expect(nextPollDelay(T, T + 1_000, BITCOIN, 0)).toBe(5_000);
    expect(nextPollDelay(T, T + 599_000, BITCOIN, 0)).toBe(1_000);
    expect(nextPollDelay(T, T + 600_000, BITCOIN, 0)).toBe(FIXED_POLL_MS);
    expect(nextPollDelay(T, T + 900_000, BITCOIN, 3)).toBe(FIXED_POLL_MS);
  });

  it('keeps the first step above a floor on chains with very short block times', () => {
    expect(nextPollDelay(T, T + 400, 400, 0)).toBe(20);
    expect(nextPollDelay(T, T + 400, 400, 5)).toBeCloseTo(67, 0);
  });
});

describe('PollPace', () => {
  it('reads at the fixed pace (or faster) until it has seen a block', () => {
    expect(new PollPace(TRON).delay(T)).toBe(FIXED_POLL_MS);
    expect(new PollPace(1_200).delay(T)).toBe(200);
  });

  it('follows a chain on time: due time, then growing steps, and back to the due time', () => {
    const pace = new PollPace(TRON);
    // One block tells nothing of the pace yet: the fixed pace until the due time, then the steps.
    pace.blockSeen(T - 3_000, T - 2_950);
    expect(pace.delay(T - 2_950)).toBe(500);
    expect(pace.delay(T - 200)).toBe(200);
    pace.blockSeen(T, T + 40);
    expect(pace.delay(T + 40)).toBe(1_000);
    // Reads before the due time that find nothing do not make the steps after it grow.
    pace.nothingNew(T + 1_040);
    pace.nothingNew(T + 2_040);
    expect(pace.delay(T + 2_040)).toBe(960);
    pace.nothingNew(T + 3_000);
    expect(pace.delay(T + 3_000)).toBe(100);
    pace.nothingNew(T + 3_100);
    expect(pace.delay(T + 3_100)).toBe(200);
    pace.blockSeen(T + 3_000, T + 3_300);
    expect(pace.delay(T + 3_300)).toBe(1_000);
    // Not there at T + 3_100, but the block before was there at the first read: the smallest lag, 0, holds.
    expect(pace.delay(T + 5_300)).toBe(700);
  });

  it('reads a step sooner after a block that was there at the first read past its due time', () => {
    const pace = new PollPace(TRON);
    pace.blockSeen(T, T + 450);
    pace.nothingNew(T + 3_400);
    pace.blockSeen(T + 3_000, T + 3_450);
    expect(pace.delay(T + 5_450)).toBe(950);
    // Due at T + 6_400: there at once.
    pace.blockSeen(T + 6_000, T + 6_400);
    expect(pace.delay(T + 8_400)).toBe(950);
    pace.blockSeen(T + 9_000, T + 9_350);
    pace.blockSeen(T + 12_000, T + 12_300);
    pace.blockSeen(T + 15_000, T + 15_250);
    // Each block there at the first read brings the next first read 50 ms sooner: 350, 300, 250, 200.
    expect(pace.delay(T + 17_250)).toBe(950);
    expect(pace.delay(T + 17_500)).toBe(700);
  });

  it('learns how late the node serves blocks, from the smallest lag of the last ones', () => {
    const pace = new PollPace(TRON);
    pace.blockSeen(T, T + 450);
    for (let block = 1; block <= 3; block++) {
      const slot = T + block * TRON;
      // Reads 50 ms apart from the due time: the block is there from 420 ms past its slot on.
      for (let read = slot; read < slot + 420; read += 50) pace.nothingNew(read);
      pace.blockSeen(slot, slot + 450);
    }
    // Seen 450 ms past the slot, missing at 400: the next read comes 400 ms past the next slot.
    expect(pace.delay(T + 3 * TRON + 2_450)).toBe(950);
    // A block served sooner came before it was due: brisk reads, and the lag it shows counts at once.
    pace.nothingNew(T + 4 * TRON + 100);
    pace.blockSeen(T + 4 * TRON, T + 4 * TRON + 150);
    expect(pace.delay(T + 4 * TRON + 200)).toBe(50);
    pace.nothingNew(T + 5 * TRON + 50);
    pace.blockSeen(T + 5 * TRON, T + 5 * TRON + 120);
    expect(pace.delay(T + 5 * TRON + 2_150)).toBe(900);
  });

  it('counts a block stamped a little ahead of this clock from when it was seen', () => {
    const pace = new PollPace(TRON);
    pace.blockSeen(T - 3_000, T - 3_000);
    pace.blockSeen(T + 600, T);
    expect(pace.delay(T)).toBe(1_000);
    expect(pace.delay(T + 2_500)).toBe(500);
  });

  it('reads briskly after a block stamped well ahead of this clock (a devnet mining on demand)', () => {
    const pace = new PollPace(TRON);
    pace.blockSeen(T + 60_000, T);
    expect(pace.delay(T)).toBe(50);
  });

  it('reads briskly after a block that came before it was due (blocks made on demand)', () => {
    const pace = new PollPace(TRON);
    pace.blockSeen(T, T);
    // The next block carries a timestamp 3 s on (a devnet's virtual clock) but is seen 0.2 s later.
    pace.blockSeen(T + 3_000, T + 200);
    expect(pace.delay(T + 200)).toBe(50);
    pace.nothingNew(T + 250);
    expect(pace.delay(T + 250)).toBe(100);
    // A block on time again ends it.
    pace.blockSeen(T + 6_000, T + 6_100);
    expect(pace.delay(T + 6_100)).toBe(1_000);
  });
});
