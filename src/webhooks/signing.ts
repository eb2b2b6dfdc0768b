import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signatures on outgoing webhooks: the Standard Webhooks headers (which the official verifiers in every
 * language accept) and Chaingateway's `X-Signature`, so receivers written for either keep working.
 */

const SECRET_PREFIX = 'whsec_';

/** A fresh per-webhook signing secret: `whsec_` + base64 of 32 random bytes (the spec asks >= 24). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface StandardWebhookMessage {
  /** Same on every attempt: receivers dedupe on it. Must not contain '.'. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact body sent: signing re-serialised JSON is the classic verification failure. */
  body: string;
  /** Current secret first; during a rotation the previous one too, so either verifies. */
  secrets: readonly string[];
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function standardWebhookHeaders(message: StandardWebhookMessage): StandardWebhookHeaders {
  if (message.secrets.length === 0) throw new Error('a webhook needs at least one signing secret');
  if (message.id.includes('.')) throw new Error('a webhook message id must not contain "."');
  const timestamp = String(Math.floor(message.timestamp));
  const content = `${message.id}.${timestamp}.${message.body}`;
  const signatures = message.secrets.map(
    (secret) => `v1,${createHmac('sha256', secretKey(secret)).update(content, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': message.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * Chaingateway's `X-Signature`: base64 HMAC-SHA256 of the txid alone. Chaingateway documents the key
 * as "your personal secret", a string the user copies, and its receiver examples feed that string
 * straight into HMAC; so the key here is the whole secret text (`whsec_...` included) as UTF-8, not its
 * decoded bytes, which is what such a receiver, given this webhook's secret, computes.
 */
export function chaingatewaySignature(secret: string, txid: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(txid, 'utf8').digest('base64');
}

/** The HMAC key of a `whsec_` secret: the base64-decoded bytes after the prefix. */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  // Never echo the secret: only say what is wrong with it.
  if (key.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new Error('a webhook signing secret must be whsec_ followed by base64');
  }
  return key;
}
