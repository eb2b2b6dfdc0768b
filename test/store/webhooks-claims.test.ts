import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/webhooks/delivery-attempt.ts';
import { DeliveryQueue } from '../../src/webhooks/delivery-queue.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { useDeliveryBench, waitFor } from '../webhooks/fixtures.ts';

const bench = useDeliveryBench();

function queue(instanceId: string, claimMs = 60_000, store = bench.store): DeliveryQueue {
  return new DeliveryQueue({
    store,
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

  it('records and claims the next rows in one transaction, and two instances doing so never share a row', async () => {
    const hook = await bench.insertWebhook({ url: 'http://127.0.0.1:1/hook' });
    const ids = await notifications(hook.id, 40);
    const room = { otherwise: 4, byWebhook: new Map() };
    const instances = [queue('one'), queue('two', 60_000, await bench.openAnotherStore())];
    const webhook = (await instances[0]!.webhooks([hook.id])).get(hook.id)!;
    const claimedBy = new Map<string, string[]>();
    const note = (instance: string, rows: { id: string }[]) => {
      for (const { id } of rows) claimedBy.set(id, [...(claimedBy.get(id) ?? []), instance]);
    };
    // Postgres runs both instances' transactions at once; SQLite has one writer at a time, and one
    // process's two connections would wait on each other, so there they take turns.
    const both = async <T>(work: (instance: DeliveryQueue, i: number) => Promise<T>): Promise<T[]> => {
      if (testDatabase() === 'postgres') return Promise.all(instances.map(work));
      const results: T[] = [];
      for (const [i, instance] of instances.entries()) results.push(await work(instance, i));
      return results;
    };
    const held = await both((instance) => instance.claimDue(4, room));
    for (const [i, rows] of held.entries()) note(['one', 'two'][i]!, rows);
    // Each turn, both at once: record what each holds and claim what follows, until nothing is due.
    while (held.some((rows) => rows.length > 0)) {
      const turns = await both((instance, i) =>
        instance.recordAndClaim(
          held[i]!.map((row) => ({
            row,
            webhook,
            attempt: okAttempt(),
            verdict: { outcome: 'delivered' as const },
          })),
          4,
          room,
        ),
      );
      turns.forEach(({ kept, claimed }, i) => {
        expect(kept.every(Boolean)).toBe(true);
        note(['one', 'two'][i]!, claimed);
        held[i] = claimed;
      });
    }
    expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
    expect([...claimedBy.values()].every((by) => by.length === 1)).toBe(true);
    expect(new Set([...claimedBy.values()].flat())).toEqual(new Set(['one', 'two']));
    for (const id of ids) {
      expect(await bench.notificationRow(id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(await bench.attemptRows(id)).toHaveLength(1);
    }
  });

  it('a claimer that dies after recording loses nothing: its records stay, its new claims lapse to another', async () => {
    const hook = await bench.insertWebhook({ url: 'http://127.0.0.1:1/hook' });
    const ids = await notifications(hook.id, 6);
    const dying = queue('dying', 200);
    const first = await dying.claimDue(3, { otherwise: 3, byWebhook: new Map() });
    const webhook = (await dying.webhooks([hook.id])).get(hook.id)!;
    const { kept, claimed } = await dying.recordAndClaim(
      first.map((row) => ({
        row,
        webhook,
        attempt: okAttempt(),
        verdict: { outcome: 'delivered' as const },
      })),
      3,
      { otherwise: 3, byWebhook: new Map() },
    );
    expect(kept).toEqual([true, true, true]);
    expect(claimed.map((row) => row.id).sort()).toEqual(ids.slice(3).sort());
    // The process dies here, before sending what it claimed. Another instance takes those rows once the
    // claims lapse, and nothing recorded is undone.
    const other = queue('other');
    expect(await other.claimDue(6, { otherwise: 6, byWebhook: new Map() })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const taken = await other.claimDue(6, { otherwise: 6, byWebhook: new Map() });
    expect(taken.map((row) => row.id).sort()).toEqual(ids.slice(3).sort());
    for (const id of ids.slice(0, 3)) {
      expect(await bench.notificationRow(id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(await bench.attemptRows(id)).toHaveLength(1);
    }
  });
});
