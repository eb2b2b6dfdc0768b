import { describe, expect, it } from 'vitest';
import {
  DEFAULT_KDF_LIMITS,
  KdfCallerGoneError,
  KdfQueueFullError,
  KdfScheduler,
} from '../../src/custody/kdf-scheduler.ts';

/** A job that finishes when the test says so, recording when it started. */
function gate(log: string[], name: string) {
  let open: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    work: async () => {
      log.push(name);
      await done;
      return name;
    },
    open: () => open(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KDF scheduler', () => {
  it('runs at most `concurrency` jobs at once', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 2, maxQueuedPerOwner: 10 });
    const log: string[] = [];
    const jobs = ['a', 'b', 'c'].map((name) => gate(log, name));
    const results = jobs.map((job) => scheduler.run({ owner: 'u' }, job.work));
    await tick();
    expect(log).toEqual(['a', 'b']);
    expect(scheduler.load()).toMatchObject({ running: 2, waiting: 1 });
    jobs[0]!.open();
    await tick();
    expect(log).toEqual(['a', 'b', 'c']);
    for (const job of jobs) job.open();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(scheduler.load()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('serves owners round-robin: a flood waits behind itself, a newcomer goes next', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 1, maxQueuedPerOwner: 50 });
    const log: string[] = [];
    const flood = Array.from({ length: 6 }, (_, i) => gate(log, `flood${i}`));
    const floodResults = flood.map((job) => scheduler.run({ owner: 'flooder' }, job.work));
    await tick();
    const other = gate(log, 'other');
    const otherResult = scheduler.run({ owner: 'other' }, other.work);
    const late = gate(log, 'late');
    const lateResult = scheduler.run({ owner: 'late' }, late.work);
    for (const job of [...flood, other, late]) job.open();
    await Promise.all([...floodResults, otherResult, lateResult]);
    // flood1 was already first in line when the others arrived; after it, one job per owner in turn.
    expect(log).toEqual(['flood0', 'flood1', 'other', 'late', 'flood2', 'flood3', 'flood4', 'flood5']);
  });

  it('bounds what one owner may have waiting, and no one else', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 1, maxQueuedPerOwner: 2 });
    const log: string[] = [];
    const jobs = Array.from({ length: 3 }, (_, i) => gate(log, `j${i}`));
    const accepted = jobs.map((job) => scheduler.run({ owner: 'u' }, job.work));
    await tick();
    // One running, two waiting: the next is refused at once.
    const refused = await scheduler.run({ owner: 'u' }, async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KdfQueueFullError);
    expect(refused).toMatchObject({ status: 429, message: 'Too many key operations in progress' });
    const other = scheduler.run({ owner: 'v' }, async () => 'v ran');
    for (const job of jobs) job.open();
    expect(await Promise.all(accepted)).toEqual(['j0', 'j1', 'j2']);
    expect(await other).toBe('v ran');
  });

  it('refuses a job whose admission check fails when its turn comes, without running it', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 1, maxQueuedPerOwner: 10 });
    const log: string[] = [];
    const first = gate(log, 'first');
    const running = scheduler.run({ owner: 'u' }, first.work);
    let locked = false;
    const refused = scheduler.run(
      {
        owner: 'u',
        admit: async () => {
          if (locked) throw new Error('locked meanwhile');
        },
      },
      async () => {
        log.push('second');
        return 'second';
      },
    );
    await tick();
    locked = true;
    first.open();
    await expect(refused).rejects.toThrow('locked meanwhile');
    expect(await running).toBe('first');
    expect(log).toEqual(['first']);
    expect(scheduler.load()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('frees the slot when a job fails', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 1, maxQueuedPerOwner: 10 });
    await expect(
      scheduler.run({ owner: 'u' }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await scheduler.run({ owner: 'u' }, async () => 'next')).toBe('next');
  });

  it('runs anonymous work in its own share of the slots, so a user still gets one at once', async () => {
    const scheduler = new KdfScheduler({
      concurrency: 2,
      maxQueuedPerOwner: 10,
      anonymousConcurrency: 1,
      maxQueuedAnonymous: 10,
    });
    const log: string[] = [];
    // Sign-ins for five different emails: one class, whatever the email.
    const anonymous = Array.from({ length: 5 }, (_, i) => gate(log, `anon${i}`));
    const anonymousResults = anonymous.map((job) => scheduler.run({ anonymous: true }, job.work));
    await tick();
    expect(log).toEqual(['anon0']);
    expect(scheduler.load()).toMatchObject({ running: 1, anonymousRunning: 1, anonymousWaiting: 4 });
    const user = gate(log, 'user');
    const userResult = scheduler.run({ owner: 'u' }, user.work);
    await tick();
    expect(log).toEqual(['anon0', 'user']);
    user.open();
    expect(await userResult).toBe('user');
    await tick();
    // The freed slot is not given to anonymous work while its one slot is taken.
    expect(log).toEqual(['anon0', 'user']);
    for (const job of anonymous) job.open();
    expect(await Promise.all(anonymousResults)).toEqual(['anon0', 'anon1', 'anon2', 'anon3', 'anon4']);
  });

  it('bounds anonymous work waiting, all together, and refuses past it at once', async () => {
    const scheduler = new KdfScheduler({
      concurrency: 2,
      maxQueuedPerOwner: 10,
      anonymousConcurrency: 1,
      maxQueuedAnonymous: 2,
    });
    const log: string[] = [];
    const jobs = Array.from({ length: 3 }, (_, i) => gate(log, `anon${i}`));
    const accepted = jobs.map((job, i) => scheduler.run({ anonymous: true, owner: `email${i}` }, job.work));
    await tick();
    const refused = await scheduler
      .run({ anonymous: true, owner: 'another email' }, async () => 'never')
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KdfQueueFullError);
    expect(await scheduler.run({ owner: 'u' }, async () => 'user ran')).toBe('user ran');
    for (const job of jobs) job.open();
    expect(await Promise.all(accepted)).toEqual(['anon0', 'anon1', 'anon2']);
  });

  it('drops a waiting job whose client has gone, without running it', async () => {
    const scheduler = new KdfScheduler({ ...DEFAULT_KDF_LIMITS, concurrency: 1 });
    const log: string[] = [];
    const first = gate(log, 'first');
    const firstClient = new AbortController();
    const running = scheduler.run({ owner: 'u', signal: firstClient.signal }, first.work);
    const client = new AbortController();
    const waiting = scheduler.run({ owner: 'v', signal: client.signal }, async () => {
      log.push('dropped one ran');
      return 'never';
    });
    await tick();
    client.abort();
    await expect(waiting).rejects.toBeInstanceOf(KdfCallerGoneError);
    expect(scheduler.load()).toMatchObject({ running: 1, waiting: 0, dropped: 1 });
    // A client gone once its derivation runs changes nothing: it finishes, and the slot frees.
    firstClient.abort();
    first.open();
    expect(await running).toBe('first');
    const gone = AbortSignal.abort();
    await expect(scheduler.run({ owner: 'w', signal: gone }, async () => 'never')).rejects.toBeInstanceOf(
      KdfCallerGoneError,
    );
    expect(log).toEqual(['first']);
    expect(scheduler.load()).toMatchObject({ running: 0, waiting: 0, dropped: 2 });
  });
});
