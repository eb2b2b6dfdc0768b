import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { retryNotification } from '../../src/webhooks/delivery-commands.ts';
import { generateWebhookSecret } from '../../src/webhooks/signing.ts';
import { testDatabase } from '../helpers/gateway.ts';
import { Receiver, signedHeaders, useDeliveryBench, waitFor } from '../webhooks/fixtures.ts';

const bench = useDeliveryBench();

describe(`webhook delivery on ${testDatabase()}`, () => {
  it('delivers a notification whose signatures the official verifier accepts', async () => {
    const hook = await bench.receiver();
    const { id: webhookId, secret } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    deliverer.start();
    try {
      await waitFor(async () => (await bench.notificationRow(note.id)).status === 'delivered');
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(1);
    const [request] = hook.requests;
    expect(request!.body).toBe(note.payload);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe('Switchyard-Webhooks/1');
    expect(request!.headers['webhook-id']).toBe(note.id);
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(secret).verify(request!.body, signedHeaders(request!))).toEqual(
      JSON.parse(note.payload),
    );
    const expected = createHmac('sha256', secret).update(note.txid).digest('base64');
    expect(request!.headers['x-signature']).toBe(expected);

    const row = await bench.notificationRow(note.id);
    expect(row).toMatchObject({ attempts: 1, response_status: 200, response_body: 'ok', claimed_by: null });
    expect(row.delivered_at).not.toBeNull();
    const attempts = await bench.attemptRows(note.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ response_status: 200, response_body: 'ok', error: null });
  });

  it('keeps the first 1,024 bytes of a long answer, and of one too long to drain, and delivers on after both', async () => {
    let answer = 'x'.repeat(5_000);
    const hook = await bench.receiver((_req, res) => res.writeHead(200).end(answer));
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const deliverer = bench.newDeliverer();
    deliverer.start();
    try {
      const kept = await bench.insertNotification({ webhookId });
      await waitFor(async () => (await bench.notificationRow(kept.id)).status === 'delivered');
      expect((await bench.notificationRow(kept.id)).response_body).toBe('x'.repeat(1_024));
      // Past 64 KiB the rest is not read: the connection is dropped, and the next send opens another.
      answer = `${'é'.repeat(600)}${'y'.repeat(200_000)}`;
      const cut = await bench.insertNotification({ webhookId });
      await waitFor(async () => (await bench.notificationRow(cut.id)).status === 'delivered');
      const [attempt] = await bench.attemptRows(cut.id);
      expect(attempt!.response_body).toBe('é'.repeat(512));
      answer = 'ok';
      const after = await bench.insertNotification({ webhookId });
      await waitFor(async () => (await bench.notificationRow(after.id)).status === 'delivered');
      expect((await bench.notificationRow(after.id)).response_body).toBe('ok');
    } finally {
      await deliverer.stop();
    }
  });

  it('at a stop, hands back unsent a delivery its receiver has not answered once the grace is over', async () => {
    // The receiver takes the POST and never answers; the request timeout is far away.
    const hook = await bench.receiver(() => undefined);
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer({ timeoutMs: 30_000 });
    deliverer.start();
    await waitFor(async () => hook.requests.length === 1);
    const stopping = performance.now();
    await deliverer.stop(AbortSignal.timeout(200));
    expect(performance.now() - stopping).toBeLessThan(5_000);
    // Not an attempt of the receiver's: pending as before, unclaimed, for any instance to send at once.
    const row = await bench.notificationRow(note.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed_by: null, claim_expires_at: null });
    expect(await bench.attemptRows(note.id)).toEqual([]);
    const next = bench.newDeliverer();
    hook.handle = (_req, res) => res.end('ok');
    expect(await next.deliverNow(note.id)).toBe('delivered');
    await next.stop();
  });

  it('signs with a rotated secret from its next attempt on, in the same running deliverer', async () => {
    const hook = await bench.receiver();
    const webhook = await bench.insertWebhook({ url: hook.url });
    const deliverer = bench.newDeliverer();
    const rotated = generateWebhookSecret();
    try {
      const before = await bench.insertNotification({ webhookId: webhook.id });
      expect(await deliverer.deliverNow(before.id)).toBe('delivered');
      // A rotation as the API makes it: a new sealed secret, the old one kept as the previous for a while.
      await bench.store.db
        .updateTable('webhooks')
        .set({
          secret_sealed: bench.masterKey.seal(rotated, webhook.id),
          previous_secret_sealed: bench.masterKey.seal(webhook.secret, `${webhook.id}:previous`),
          previous_secret_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        })
        .where('id', '=', webhook.id)
        .execute();
      const after = await bench.insertNotification({ webhookId: webhook.id });
      expect(await deliverer.deliverNow(after.id)).toBe('delivered');
    } finally {
      await deliverer.stop();
    }
    const [first, second] = hook.requests;
    expect(new Webhook(webhook.secret).verify(first!.body, signedHeaders(first!))).toBeTruthy();
    expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(rotated).verify(second!.body, signedHeaders(second!))).toBeTruthy();
    expect(second!.headers['x-signature']).not.toBe(first!.headers['x-signature']);
  });

  it('signs with the previous secret too while it is valid, and not after', async () => {
    const hook = await bench.receiver();
    const previous = generateWebhookSecret();
    const rotating = await bench.insertWebhook({
      url: hook.url,
      previousSecret: previous,
      previousSecretExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const rotated = await bench.insertWebhook({
      url: hook.url,
      previousSecret: previous,
      previousSecretExpiresAt: new Date(Date.now() - 1_000).toISOString(),
    });
    const during = await bench.insertNotification({ webhookId: rotating.id });
    const after = await bench.insertNotification({ webhookId: rotated.id });
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(during.id)).toBe('delivered');
    expect(await deliverer.deliverNow(after.id)).toBe('delivered');
    await deliverer.stop();

    const [first, second] = hook.requests;
    expect(String(first!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(rotating.secret).verify(first!.body, signedHeaders(first!))).toBeTruthy();
    expect(new Webhook(previous).verify(first!.body, signedHeaders(first!))).toBeTruthy();
    expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(rotated.secret).verify(second!.body, signedHeaders(second!))).toBeTruthy();
    expect(() => new Webhook(previous).verify(second!.body, signedHeaders(second!))).toThrow();
  });

  it('fails on a 500 and does not resend on its own; a manual retry resends with the same id', async () => {
    const hook = await bench.receiver((_req, res) => res.writeHead(500).end('x'.repeat(5_000)));
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    deliverer.start();
    try {
      await waitFor(async () => (await bench.notificationRow(note.id)).status === 'failed');
      await new Promise((resolve) => setTimeout(resolve, 200)); // ten poll cycles
      expect(hook.requests).toHaveLength(1);
      const failed = await bench.notificationRow(note.id);
      expect(failed).toMatchObject({ attempts: 1, response_status: 500, delivered_at: null });
      expect(failed.response_body).toHaveLength(1024);

      expect(await retryNotification(bench.store, 'someone-else', note.id)).toBe(false);
      expect(await retryNotification(bench.store, bench.userId, note.id)).toBe(true);
      expect(await retryNotification(bench.store, bench.userId, note.id)).toBe(false); // no longer failed
      await waitFor(async () => (await bench.notificationRow(note.id)).attempts === 2);
      expect((await bench.notificationRow(note.id)).status).toBe('failed'); // failed again: back on the list

      hook.handle = (_req, res) => res.writeHead(204).end();
      expect(await retryNotification(bench.store, bench.userId, note.id)).toBe(true);
      await waitFor(async () => (await bench.notificationRow(note.id)).status === 'delivered');
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(3);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([note.id]));
    const attempts = await bench.attemptRows(note.id);
    expect(attempts.map((a) => a.response_status)).toEqual([500, 500, 204]);
    expect(attempts.every((a) => a.duration_ms >= 0)).toBe(true);
    // Attempt ids are time-ordered, so their index grows at its end: sorted by id as they were made.
    expect(attempts.map((a) => a.id)).toEqual(attempts.map((a) => a.id).sort());
    expect(attempts.every((a) => a.id[14] === '7')).toBe(true);
  });

  it('deliverNow sends a retried notification at once and reports the outcome', async () => {
    const hook = await bench.receiver((_req, res) => res.writeHead(503).end('busy'));
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(note.id)).toBe('failed');
    expect(await deliverer.deliverNow(note.id)).toBeNull(); // failed rows wait for a manual retry
    hook.handle = (_req, res) => res.end('ok');
    expect(await retryNotification(bench.store, bench.userId, note.id)).toBe(true);
    expect(await deliverer.deliverNow(note.id)).toBe('delivered');
    await deliverer.stop();
    expect(hook.requests).toHaveLength(2);
  });

  it('with the backoff policy reschedules, honours Retry-After, and resends when due', async () => {
    let clock = new Date();
    const hook = await bench.receiver((_req, res) => res.writeHead(503, { 'retry-after': '120' }).end());
    const plain = await bench.receiver((_req, res) => res.writeHead(502).end());
    const withRetryAfter = await bench.insertWebhook({ url: hook.url, retryPolicy: 'backoff' });
    const withoutRetryAfter = await bench.insertWebhook({ url: plain.url, retryPolicy: 'backoff' });
    const first = await bench.insertNotification({ webhookId: withRetryAfter.id, nextAttemptAt: clock });
    const second = await bench.insertNotification({ webhookId: withoutRetryAfter.id, nextAttemptAt: clock });
    const deliverer = bench.newDeliverer({ now: () => clock });
    deliverer.start();
    try {
      await waitFor(async () => (await bench.notificationRow(first.id)).attempts === 1);
      await waitFor(async () => (await bench.notificationRow(second.id)).attempts === 1);
      const rescheduled = await bench.notificationRow(first.id);
      expect(rescheduled.status).toBe('pending');
      expect(Date.parse(rescheduled.next_attempt_at) - clock.getTime()).toBe(120_000);
      const scheduled = await bench.notificationRow(second.id);
      expect(scheduled.status).toBe('pending');
      const delay = Date.parse(scheduled.next_attempt_at) - clock.getTime();
      expect(delay).toBeGreaterThanOrEqual(4_500);
      expect(delay).toBeLessThanOrEqual(5_500);

      hook.handle = (_req, res) => res.end('ok');
      clock = new Date(clock.getTime() + 60_000); // past the schedule's 5 s, not past Retry-After
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(hook.requests).toHaveLength(1);
      expect(plain.requests).toHaveLength(2);
      clock = new Date(clock.getTime() + 61_000);
      await waitFor(async () => (await bench.notificationRow(first.id)).status === 'delivered');
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(2);
    expect(await bench.notificationRow(first.id)).toMatchObject({ attempts: 2, response_status: 200 });
  });

  it('gives up after the last scheduled attempt', async () => {
    const hook = await bench.receiver((_req, res) => res.writeHead(500).end());
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url, retryPolicy: 'backoff' });
    const note = await bench.insertNotification({ webhookId });
    await bench.store.db
      .updateTable('notifications')
      .set({ attempts: 7 })
      .where('id', '=', note.id)
      .execute();
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(note.id)).toBe('failed');
    await deliverer.stop();
    expect(await bench.notificationRow(note.id)).toMatchObject({ status: 'failed', attempts: 8 });
  });

  it('disables the webhook on 410 Gone; its later notifications fail without a request', async () => {
    const hook = await bench.receiver((_req, res) => res.writeHead(410).end('gone'));
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url, retryPolicy: 'backoff' });
    const first = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(first.id)).toBe('failed');
    const webhook = await bench.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    expect(webhook).toMatchObject({
      is_active: 0,
      is_invalid: 1,
      invalid_reason: 'the endpoint answered 410 Gone',
    });
    const version = await bench.store.db
      .selectFrom('watch_versions')
      .select('version')
      .where('chain', '=', 'tron')
      .where('network', '=', 'mainnet')
      .executeTakeFirstOrThrow();
    expect(webhook.change_version).toBe(Number(version.version));

    const second = await bench.insertNotification({ webhookId });
    expect(await deliverer.deliverNow(second.id)).toBe('failed');
    await deliverer.stop();
    expect(hook.requests).toHaveLength(1);
    expect(await bench.notificationRow(second.id)).toMatchObject({ status: 'failed', attempts: 0 });
  });

  it('fails notifications of a deleted or inactive webhook without sending', async () => {
    const hook = await bench.receiver();
    const deleted = await bench.insertWebhook({ url: hook.url, deletedAt: new Date().toISOString() });
    const inactive = await bench.insertWebhook({ url: hook.url, isActive: false });
    const a = await bench.insertNotification({ webhookId: deleted.id });
    const b = await bench.insertNotification({ webhookId: inactive.id });
    const deliverer = bench.newDeliverer();
    deliverer.start();
    try {
      await waitFor(async () => (await bench.notificationRow(a.id)).status === 'failed');
      await waitFor(async () => (await bench.notificationRow(b.id)).status === 'failed');
    } finally {
      await deliverer.stop();
    }
    expect(hook.requests).toHaveLength(0);
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const landing = await bench.receiver();
    const redirecting = await bench.receiver((_req, res) =>
      res.writeHead(307, { location: landing.url }).end(),
    );
    const { id: webhookId } = await bench.insertWebhook({ url: redirecting.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(note.id)).toBe('failed');
    await deliverer.stop();
    expect(redirecting.requests).toHaveLength(1);
    expect(landing.requests).toHaveLength(0);
    expect(await bench.notificationRow(note.id)).toMatchObject({ status: 'failed', response_status: 307 });
  });

  it('records a URL the guard refuses as a failed attempt, without a request', async () => {
    const hook = await bench.receiver();
    const { id: webhookId } = await bench.insertWebhook({ url: hook.url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer({ allowlist: [] });
    expect(await deliverer.deliverNow(note.id)).toBe('failed');
    await deliverer.stop();
    expect(hook.requests).toHaveLength(0);
    const [attempt] = await bench.attemptRows(note.id);
    expect(attempt!.error).toMatch(/^refused: .*127\.0\.0\.1.*loopback/);
    expect(attempt!.response_status).toBeNull();
  });

  it('records a connection error as a failed attempt', async () => {
    const gone = await Receiver.start();
    const url = gone.url;
    await gone.close();
    const { id: webhookId } = await bench.insertWebhook({ url });
    const note = await bench.insertNotification({ webhookId });
    const deliverer = bench.newDeliverer();
    expect(await deliverer.deliverNow(note.id)).toBe('failed');
    await deliverer.stop();
    const [attempt] = await bench.attemptRows(note.id);
    expect(attempt!.error).toContain('ECONNREFUSED');
    expect(await bench.notificationRow(note.id)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
