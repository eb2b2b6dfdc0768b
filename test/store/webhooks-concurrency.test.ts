import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BACKLOG_PER_SLOT } from '../../src/webhooks/origin-slots.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { useDeliveryBench, waitFor } from '../webhooks/fixtures.ts';

const bench = useDeliveryBench();

/** `count` notifications due a minute ago, oldest first, for `webhookId`. */
async function queueDue(webhookId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await bench.insertNotification({ webhookId, nextAttemptAt: new Date(Date.now() - 60_000 + i) });
  }
}

/** Notifications in `status` (`delivering`: claimed by a deliverer and not settled yet). */
async function countWith(status: string): Promise<number> {
  const rows = await bench.store.db
    .selectFrom('notifications')
    .select('id')
    .where('status', '=', status)
    .execute();
  return rows.length;
}

/** A prompt receiver with `count` notifications due, and the attempts' table locked until `release`. */
async function dueBehindHeldRecords(count: number) {
  const hook = await bench.receiver();
  const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
  await queueDue(webhookId, count);
  return { hook, release: await holdAttemptsTable() };
}

/**
 * After 4 prompt answers and `cap` requests held: the prompt answers let rows be claimed ahead, beyond the
 * cap up to BACKLOG_PER_SLOT times it more, and no more.
 */
async function expectFullBacklog(requests: readonly unknown[], cap: number): Promise<void> {
  await waitFor(async () => (await countWith('delivering')) === cap * (1 + BACKLOG_PER_SLOT));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await countWith('delivering')).toBe(cap * (1 + BACKLOG_PER_SLOT));
  expect(requests).toHaveLength(4 + cap);
}

async function statusOf(id: string): Promise<string> {
  return (await bench.notificationRow(id)).status;
}

/**
 * Another connection holds the attempts' table until the returned function is called: every record waits,
 * claims do not touch it.
 */
async function holdAttemptsTable(): Promise<() => Promise<void>> {
  const locker = await bench.openAnotherStore();
  let unlock = () => {};
  const unlocked = new Promise<void>((resolve) => {
    unlock = resolve;
  });
  let locked = () => {};
  const lockTaken = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holding = locker.db.transaction().execute(async (trx) => {
    await sql`lock table notification_attempts in exclusive mode`.execute(trx);
    locked();
    await unlocked;
  });
  await lockTaken;
  return async () => {
    unlock();
    await holding;
  };
}

describe(`webhook delivery under load on ${testDatabase()}`, () => {
  it('delivers to a healthy receiver promptly while a dead one times out', async () => {
    const timeoutMs = 1_500;
    const dead = await bench.receiver(() => {}); // accepts, reads, never answers
    const healthy = await bench.receiver();
    const deadHook = await bench.insertWebhook({ url: dead.url });
    const healthyHook = await bench.insertWebhook({ url: healthy.url });
    const older = new Date(Date.now() - 60_000);
    const stuck: { id: string }[] = [];
    for (let i = 0; i < 4; i++) {
      stuck.push(await bench.insertNotification({ webhookId: deadHook.id, nextAttemptAt: older }));
    }
    const prompt: { id: string }[] = [];
    for (let i = 0; i < 8; i++) prompt.push(await bench.insertNotification({ webhookId: healthyHook.id }));

    const deliverer = bench.newDeliverer({ timeoutMs, concurrency: 4, perHostConcurrency: 2 });
    const started = performance.now();
    deliverer.start();
    try {
      await waitFor(async () => {
        for (const note of prompt) if ((await statusOf(note.id)) !== 'delivered') return false;
        return true;
      });
      const healthyDone = performance.now() - started;
      expect(healthyDone).toBeLessThan(timeoutMs / 2);
      expect(healthy.requests).toHaveLength(8);
      // The dead endpoint never has more than its per-host share in flight.
      expect(dead.requests.length).toBeLessThanOrEqual(2);

      await waitFor(async () => {
        for (const note of stuck) if ((await statusOf(note.id)) !== 'failed') return false;
        return true;
      }, 4 * timeoutMs);
    } finally {
      await deliverer.stop();
    }
    const [attempt] = await bench.attemptRows(stuck[0]!.id);
    expect(attempt!.error).toBe(`timed out after ${timeoutMs} ms`);
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(attempt!.duration_ms).toBeLessThan(timeoutMs + 1_000);
  });

  it('two instances on one database never deliver the same notification twice', async () => {
    const hooks = [];
    for (let i = 0; i < 3; i++) {
      hooks.push(
        await bench.receiver((_req, res) => {
          setTimeout(() => res.end('ok'), Math.random() * 15);
        }),
      );
    }
    const webhookIds = [];
    for (const hook of hooks) webhookIds.push((await bench.insertWebhook({ url: hook.url })).id);
    // More than one instance can claim ahead (BACKLOG_PER_SLOT times its slots per origin): both get some.
    const notifications = 150;
    for (let i = 0; i < notifications; i++)
      await bench.insertNotification({ webhookId: webhookIds[i % webhookIds.length]! });
    const registries = [new Registry(), new Registry()];
    const one = bench.newDeliverer({
      metrics: registries[0]!,
      concurrency: 6,
      perHostConcurrency: 2,
      pollMs: 5,
    });
    const two = bench.newDeliverer({
      store: await bench.openAnotherStore(),
      metrics: registries[1]!,
      concurrency: 6,
      perHostConcurrency: 2,
      pollMs: 5,
    });
    one.start();
    two.start();
    try {
      await waitFor(async () => {
        const left = await bench.store.db
          .selectFrom('notifications')
          .select('id')
          .where('status', '!=', 'delivered')
          .execute();
        return left.length === 0;
      }, 15_000);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
    const counts = new Map<string, number>();
    for (const hook of hooks)
      for (const [id, n] of hook.countsById()) counts.set(id, (counts.get(id) ?? 0) + n);
    expect(counts.size).toBe(notifications);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const delivered = await Promise.all(
      registries.map(async (registry) => {
        const metric = await registry.getSingleMetric('switchyard_webhook_deliveries_total')!.get();
        return metric.values.find((v) => v.labels['outcome'] === 'delivered')?.value ?? 0;
      }),
    );
    expect(delivered[0]! + delivered[1]!).toBe(notifications);
    expect(delivered[0]).toBeGreaterThan(0);
    expect(delivered[1]).toBeGreaterThan(0);
  });

  it('claims ahead for a receiver that keeps up, never past its cap in flight, and hands the rows back at a stop', async () => {
    const cap = 2;
    let open = 0;
    let most = 0;
    let answered = 0;
    // Answers the first requests at once, then holds every request: the rows claimed meanwhile wait.
    const hook = await bench.receiver((_req, res) => {
      open++;
      most = Math.max(most, open);
      if (answered >= 4) return;
      answered++;
      open--;
      res.end('ok');
    });
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    await queueDue(webhookId, 30);
    const deliverer = bench.newDeliverer({ perHostConcurrency: cap, timeoutMs: 30_000, pollMs: 5 });
    deliverer.start();
    try {
      await expectFullBacklog(hook.requests, cap);
    } finally {
      await deliverer.stop(AbortSignal.timeout(100));
    }
    expect(most).toBeLessThanOrEqual(cap);
    // Stopped: the rows that waited, and the requests cut off, are pending again and no one's.
    expect(await countWith('delivering')).toBe(0);
    expect(await countWith('delivered')).toBe(4);
  });

  it('claims ahead for a receiver that keeps up even with every request of the global cap taken', async () => {
    const cap = 2;
    let answered = 0;
    // Answers the first requests at once, then holds every request: every request slot stays taken.
    const hook = await bench.receiver((_req, res) => {
      if (answered >= 4) return;
      answered++;
      res.end('ok');
    });
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    await queueDue(webhookId, 30);
    // The global cap is the origin's: a claim sized by the free requests alone would claim nothing ahead.
    const deliverer = bench.newDeliverer({
      concurrency: cap,
      perHostConcurrency: cap,
      timeoutMs: 30_000,
      pollMs: 5,
    });
    deliverer.start();
    try {
      await waitFor(() => hook.requests.length === 4 + cap);
      await expectFullBacklog(hook.requests, cap);
    } finally {
      await deliverer.stop(AbortSignal.timeout(100));
    }
    expect(await countWith('delivering')).toBe(0);
  });

  it('with every request of its global cap taken, claims again as soon as one ends, not at the next poll', async () => {
    const hook = await bench.receiver((_req, res) => {
      setTimeout(() => res.end('ok'), 20);
    });
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await bench.insertNotification({ webhookId })).id);
    const deliverer = bench.newDeliverer({ concurrency: 2, perHostConcurrency: 2, pollMs: 60_000 });
    deliverer.start();
    try {
      await waitFor(async () => {
        for (const id of ids) if ((await statusOf(id)) !== 'delivered') return false;
        return true;
      }, 3_000);
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(8);
  });

  // SQLite records a batch and claims the next rows in one transaction (one writer): there, claims wait.
  it.runIf(testDatabase() === 'postgres')(
    'on Postgres claims go on while the attempts wait for their record',
    async () => {
      const count = 200;
      const { hook, release } = await dueBehindHeldRecords(count);
      const deliverer = bench.newDeliverer({ timeoutMs: 30_000 });
      deliverer.start();
      try {
        // Claims waiting for a record stopped at the first claim's rows (the cap, 16).
        await waitFor(async () => hook.requests.length === count);
      } finally {
        await release();
      }
      try {
        await waitFor(async () => (await countWith('delivered')) === count);
      } finally {
        await deliverer.stop();
      }
      const attempts = await bench.store.db.selectFrom('notification_attempts').select('id').execute();
      expect(attempts).toHaveLength(count);
      expect(hook.countsById().size).toBe(count);
    },
  );

  it.runIf(testDatabase() === 'postgres')(
    'on Postgres stops claiming while four times its global cap of answers wait for their record',
    async () => {
      const count = 200;
      const { hook, release } = await dueBehindHeldRecords(count);
      const cap = 4;
      const deliverer = bench.newDeliverer({ concurrency: 4, perHostConcurrency: cap, timeoutMs: 30_000 });
      deliverer.start();
      try {
        await waitFor(async () => hook.requests.length >= 16);
        await new Promise((resolve) => setTimeout(resolve, 500));
        // 16 answers awaiting their record stop the claims; the rows claimed by then are still sent.
        expect(hook.requests.length).toBeLessThanOrEqual(16 + cap * (1 + BACKLOG_PER_SLOT));
      } finally {
        await release();
      }
      try {
        await waitFor(async () => hook.requests.length === count);
      } finally {
        await deliverer.stop();
      }
    },
  );

  it('claims for a receiver whose slots free up while a prompt one holds a full backlog', async () => {
    // The prompt receiver answers its first requests and then holds the rest: its backlog stays full.
    let answered = 0;
    const held = await bench.receiver((_req, res) => {
      if (answered >= 8) return;
      answered++;
      res.end('ok');
    });
    // The other answers at once, with an error: it never keeps up, so nothing is claimed ahead for it.
    const failing = await bench.receiver((_req, res) => res.writeHead(500).end());
    const heldHook = await bench.insertWebhook({ url: held.url });
    const failingHook = await bench.insertWebhook({ url: failing.url });
    const failingCount = 30;
    for (let i = 0; i < 100; i++) {
      const nextAttemptAt = new Date(Date.now() - 60_000 + i);
      await bench.insertNotification({ webhookId: heldHook.id, nextAttemptAt });
      if (i < failingCount) await bench.insertNotification({ webhookId: failingHook.id, nextAttemptAt });
    }
    // No poll to fall back on: each claim for the failing receiver follows its answers.
    const deliverer = bench.newDeliverer({ perHostConcurrency: 8, timeoutMs: 30_000, pollMs: 60_000 });
    deliverer.start();
    try {
      await waitFor(async () => failing.requests.length === failingCount);
    } finally {
      await deliverer.stop(AbortSignal.timeout(100));
    }
  });

  it("takes over a dead instance's lapsed claim and leaves a live claim alone", async () => {
    const hook = await bench.receiver();
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const lapsed = await bench.insertNotification({
      webhookId,
      status: 'delivering',
      claimedBy: 'crashed-instance',
      claimExpiresAt: new Date(Date.now() - 1_000),
    });
    const live = await bench.insertNotification({
      webhookId,
      status: 'delivering',
      claimedBy: 'busy-instance',
      claimExpiresAt: new Date(Date.now() + 60_000),
    });
    const fresh = await bench.insertNotification({ webhookId });
    const notDue = await bench.insertNotification({
      webhookId,
      nextAttemptAt: new Date(Date.now() + 60_000),
    });
    const deliverer = bench.newDeliverer();
    deliverer.start();
    try {
      await waitFor(
        async () => (await statusOf(lapsed.id)) === 'delivered' && (await statusOf(fresh.id)) === 'delivered',
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
    } finally {
      await deliverer.stop();
    }
    expect(await bench.notificationRow(live.id)).toMatchObject({
      status: 'delivering',
      claimed_by: 'busy-instance',
    });
    expect(await statusOf(notDue.id)).toBe('pending');
    expect([...hook.countsById().keys()].sort()).toEqual([lapsed.id, fresh.id].sort());
  });

  it('exports delivery counts, durations and block-to-delivery latency', async () => {
    const hook = await bench.receiver();
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId, blockTime: new Date(Date.now() - 3_000) });
    const metrics = new Registry();
    const deliverer = bench.newDeliverer({ metrics });
    expect(await deliverer.deliverNow(note.id)).toBe('delivered');
    await deliverer.stop();
    const text = await metrics.metrics();
    expect(text).toContain('switchyard_webhook_deliveries_total{outcome="delivered"} 1');
    expect(text).toContain('switchyard_webhook_delivery_duration_seconds_count 1');
    expect(text).toContain('switchyard_block_to_delivery_seconds_count 1');
    const sum = Number(/switchyard_block_to_delivery_seconds_sum ([\d.]+)/.exec(text)![1]);
    expect(sum).toBeGreaterThanOrEqual(3);
    expect(sum).toBeLessThan(10);
    // A second deliverer on the same registry reuses the metrics instead of failing to register them.
    const again = bench.newDeliverer({ metrics });
    await again.stop();
  });
});
