import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/webhooks/delivery-attempt.ts';
import { DeliveryQueue } from '../../src/webhooks/delivery-queue.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { useDeliveryBench, waitFor } from '../webhooks/fixtures.ts';

const bench = useDeliveryBench();

function queue(instanceId: string, claimMs = 60_000): DeliveryQueue {
  return new DeliveryQueue({
    store: bench.store,
    instanceId,
    claimMs,
    planGraceMs: 0,
    now: () => new Date(),
  });
}

async function notifications(webhookId: string, count: number, start = Date.now() - 60_000) {
  const ids: string[] = [];
  // Distinct times, oldest first, so the claim order is known.
  for (let i = 0; i < count; i++) {
    ids.push((await bench.insertNotification({ webhookId, nextAttemptAt: new Date(start + i) })).id);
  }
  return ids;
}

function okAttempt(): AttemptResult {
  const at = new Date();
  return {
    attemptedAt: at,
    finishedAt: at,
    durationMs: 1,
    status: 200,
    body: 'ok',
    error: null,
    retryAfter: null,
  };
}

describe(`claims and records on ${testDatabase()}`, () => {
  it('claims per webhook no more rows than its room, oldest first, and reaches the others once a full origin is left out', async () => {
    const busy = await bench.insertWebhook({ url: 'http://127.0.0.1:1/busy' });
    const idle = await bench.insertWebhook({ url: 'http://127.0.0.1:2/idle' });
    const full = await bench.insertWebhook({ url: 'http://127.0.0.1:3/full' });
    const busyIds = await notifications(busy.id, 10);
    const idleIds = await notifications(idle.id, 10, Date.now() - 30_000);
    await notifications(full.id, 5, Date.now() - 90_000);

    const claimer = queue('one');
    const first = await claimer.claimDue(20, {
      otherwise: 4,
      byWebhook: new Map([
        [busy.id, 2],
        [full.id, 0],
      ]),
    });
    expect(first.map((row) => row.id).sort()).toEqual(busyIds.slice(0, 2).sort());
    // Its origin now full, the busy webhook is left out too, and the claim reaches the rows behind it.
    const second = await claimer.claimDue(20, {
      otherwise: 4,
      byWebhook: new Map([
        [busy.id, 0],
        [full.id, 0],
      ]),
    });
    expect(second.map((row) => row.id).sort()).toEqual(idleIds.slice(0, 4).sort());
    const claimed = [...first, ...second].map((row) => row.id);
    // Nothing else changed hands: the rest are still pending and unclaimed.
    const delivering = await bench.store.db
      .selectFrom('notifications')
      .select('id')
      .where('status', '=', 'delivering')
      .execute();
    expect(delivering.map((row) => row.id).sort()).toEqual([...claimed].sort());
  });

  it("a saturated origin's rows are never claimed and handed back while it is busy", async () => {
    let open = 0;
    let most = 0;
    const slow = await bench.receiver((_req, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.end('ok');
      }, 30);
    });
    const hook = await bench.insertWebhook({ url: slow.url });
    const ids = await notifications(hook.id, 12);
    const deliverer = bench.newDeliverer({ concurrency: 16, perHostConcurrency: 3, pollMs: 5 });
    // A claim stamps updated_at; a hand-back turns the row pending again and leaves the stamp: a pending,
    // never attempted row stamped after the start was claimed and handed back.
    const started = new Date(Date.now() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    let handedBack = 0;
    const watch = setInterval(async () => {
      const back = await bench.store.db
        .selectFrom('notifications')
        .select('id')
        .where('status', '=', 'pending')
        .where('attempts', '=', 0)
        .where('updated_at', '>', started)
        .execute();
      handedBack = Math.max(handedBack, back.length);
    }, 2);
    deliverer.start();
    try {
      await waitFor(async () => {
        for (const id of ids) if ((await bench.notificationRow(id)).status !== 'delivered') return false;
        return true;
      });
    } finally {
      clearInterval(watch);
      await deliverer.stop();
    }
    expect(most).toBeLessThanOrEqual(3);
    expect(handedBack).toBe(0);
    expect(slow.countsById().size).toBe(12);
  });

  it('a batch of records keeps the live claims and refuses the one that lapsed and was taken over', async () => {
    const hook = await bench.insertWebhook({ url: 'http://127.0.0.1:1/hook' });
    await notifications(hook.id, 3);
    const mine = queue('mine', -1); // claims that have lapsed the moment they are made
    const rows = await mine.claimDue(3, { otherwise: 3, byWebhook: new Map() });
    expect(rows).toHaveLength(3);
    // Another instance takes over the oldest row, as it would after the claim lapsed.
    const taken = await queue('other').claimOne(rows[0]!.id);
    expect(taken?.id).toBe(rows[0]!.id);

    const webhook = (await mine.webhooks([hook.id])).get(hook.id)!;
    const kept = await mine.recordMany(
      rows.map((row) => ({ row, webhook, attempt: okAttempt(), verdict: { outcome: 'delivered' as const } })),
    );
    expect(kept).toEqual([false, true, true]);
    expect(await bench.notificationRow(rows[0]!.id)).toMatchObject({
      status: 'delivering',
      claimed_by: 'other',
      attempts: 0,
    });
    for (const row of rows.slice(1)) {
      expect(await bench.notificationRow(row.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    }
    // The request was made all the same: every attempt is on record.
    for (const row of rows) expect(await bench.attemptRows(row.id)).toHaveLength(1);
  });
});
