import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  chaingatewaySignature,
  generateWebhookSecret,
  standardWebhookHeaders,
} from '../../src/webhooks/signing.ts';

describe('webhook signing', () => {
  it('generates whsec_ secrets of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });

  it('matches the Standard Webhooks test vector', () => {
    const headers = standardWebhookHeaders({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    });
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('is accepted by the official verifier, with either secret during a rotation', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const body = '{"txid":"ab","amount":108935, "memo":"café ✓"}';
    const headers = standardWebhookHeaders({
      id: 'b2f6a4e0-1c1d-4c59-9a8e-3c2d7e0f9a11',
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets: [current, previous],
    });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
    // One changed byte of the body breaks it: the exact bytes are signed.
    expect(() => new Webhook(current).verify(body.replace('108935', '108936'), { ...headers })).toThrow();
  });

  it('computes X-Signature as base64 HMAC-SHA256 of the txid, keyed by the whole secret text', () => {
    // Independently computed: printf '%s' a1b2c3 | openssl dgst -sha256 -hmac '<secret>' -binary | base64
    expect(chaingatewaySignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'a1b2c3')).toBe(
      'xg+X0RzY48MA/G3+OAATNyfp3yqzmJ6HoHw3WHl/Lrs=',
    );
  });

  it('rejects a malformed secret without echoing it', () => {
    const bad = 'whsec_not base64!';
    expect(() => standardWebhookHeaders({ id: 'x', timestamp: 1, body: '{}', secrets: [bad] })).toThrow(
      /must be whsec_ followed by base64/,
    );
    try {
      standardWebhookHeaders({ id: 'x', timestamp: 1, body: '{}', secrets: [bad] });
    } catch (error) {
      expect((error as Error).message).not.toContain(bad);
    }
    expect(() =>
      standardWebhookHeaders({ id: 'a.b', timestamp: 1, body: '{}', secrets: [generateWebhookSecret()] }),
    ).toThrow();
    expect(() => standardWebhookHeaders({ id: 'x', timestamp: 1, body: '{}', secrets: [] })).toThrow();
  });
});
