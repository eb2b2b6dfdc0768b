// Every delivery of one notification carries the same `webhook-id`, so a receiver can dedupe on it: the
// first attempt, the backoff retries, a manual retry, and a redelivery after the deliverer died between
// the receiver getting the POST and the attempt being recorded.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { retryNotification } from '../../src/webhooks/delivery-commands.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { exited, startDetached } from '../helpers/processes.ts';
import { signedHeaders, useDeliveryBench, waitFor } from '../webhooks/fixtures.ts';

const bench = useDeliveryBench();

/** Backoff delays reach 10 h: a step of 11 h makes any scheduled retry due. */
const PAST_ANY_BACKOFF_MS = 11 * 3_600_000;

describe(`webhook-id across deliveries on ${testDatabase()}`, () => {
  it('keeps the id through every backoff retry and a manual retry after them', async () => {
    let clock = new Date();
    const hook = await bench.receiver((_req, res) => res.writeHead(503).end('busy'));
    const { id: webhookId, secret } = await bench.insertWebhook({ url: hook.url, retryPolicy: 'backoff' });
    const note = await bench.insertNotification({ webhookId, nextAttemptAt: clock });
    const deliverer = bench.newDeliverer({ now: () => clock });
    deliverer.start();
    try {
      // The first attempt and the seven the schedule allows, then it gives up.
      for (let attempt = 1; attempt <= 8; attempt++) {
        await waitFor(async () => (await bench.notificationRow(note.id)).attempts === attempt);
        clock = new Date(clock.getTime() + PAST_ANY_BACKOFF_MS);
      }
      expect((await bench.notificationRow(note.id)).status).toBe('failed');
      hook.handle = (_req, res) => res.end('ok');
      expect(await retryNotification(bench.store, bench.userId, note.id, clock)).toBe(true);
      await waitFor(async () => (await bench.notificationRow(note.id)).status === 'delivered');
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(9);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual(Array(9).fill(note.id));
    expect(hook.requests.every((r) => r.body === note.payload)).toBe(true);
    // Only the first was signed at the real time; the verifier refuses timestamps far from now.
    expect(() =>
      new Webhook(secret).verify(hook.requests[0]!.body, signedHeaders(hook.requests[0]!)),
    ).not.toThrow();
    const timestamps = new Set(hook.requests.map((r) => r.headers['webhook-timestamp']));
    expect(timestamps.size).toBe(9); // each attempt signs anew, with its own time, under the same id
  });

  it('redelivers under the same id when the deliverer died after the receiver got the POST', async () => {
    let gateway: ReturnType<typeof startDetached> | undefined;
    let killed = false;
    const hook = await bench.receiver((_req, res) => {
      if (!killed && gateway !== undefined) {
        killed = true;
        process.kill(-gateway.child.pid!, 'SIGKILL');
        return; // the process is gone, and its connection with it: no answer reaches it
      }
      res.end('ok');
    });
    const { id: webhookId, secret } = await bench.insertWebhook({ url: hook.url });
    // A gateway process that only delivers, on this database; it is killed the moment its POST arrives,
    // before it can read the answer or record anything.
    gateway = startDetached(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      ...bench.processEnv,
      ROLES: 'deliverer',
      METRICS_PORT: 'off',
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      LOG_LEVEL: 'warn',
    });
    const note = await bench.insertNotification({ webhookId });
    try {
      await waitFor(() => killed, 30_000);
      await exited(gateway.child, 10_000);
    } catch (error) {
      if (!killed) process.kill(-gateway.child.pid!, 'SIGKILL');
      throw new Error(`the delivering process sent nothing: ${gateway.output()}`, { cause: error });
    }
    // What the dead process left: its claim on the row, and no attempt recorded.
    const left = await bench.notificationRow(note.id);
    expect(left).toMatchObject({ status: 'delivering', attempts: 0 });
    expect(left.claimed_by).not.toBeNull();
    expect(await bench.attemptRows(note.id)).toEqual([]);

    // Another instance, once the claim has lapsed (its clock is past the expiry), sends it again.
    const lapsed = new Date(Date.parse(left.claim_expires_at!) + 1_000);
    const survivor = bench.newDeliverer({ now: () => lapsed });
    survivor.start();
    try {
      await waitFor(async () => (await bench.notificationRow(note.id)).status === 'delivered');
    } finally {
      await survivor.stop();
    }
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([note.id, note.id]);
    expect(hook.requests.map((r) => r.body)).toEqual([note.payload, note.payload]);
    expect(() =>
      new Webhook(secret).verify(hook.requests[0]!.body, signedHeaders(hook.requests[0]!)),
    ).not.toThrow();
    expect(await bench.notificationRow(note.id)).toMatchObject({ attempts: 1, response_status: 200 });
  }, 60_000);
});
