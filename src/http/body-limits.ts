import type { FastifyInstance } from 'fastify';
import { REQUEST_MAX_JSON_VALUES } from '../json/lossless-parse.ts';
import { errorResponse } from './route-schema.ts';

const KiB = 1_024;

/**
 * The most bytes each kind of route reads as its body; a route declares its kind's limit as its Fastify
 * `bodyLimit`, and every other route takes `BODY_LIMITS.default`. Sized to the largest body each route
 * has a use for, so a caller cannot make the gateway read (and parse) more than that.
 */
export const BODY_LIMITS = {
  /** Sign-in and sign-up: an email (254 characters) and a password (1,024), in UTF-8. */
  signIn: 4 * KiB,
  /** Everything else: sends, builds, webhooks, tokens; the widest carries a few hundred bytes. */
  default: 16 * KiB,
  /** A keystore to import, as JSON or its text (at most 16,384 characters). */
  keystore: 64 * KiB,
  /** An EVM send or build, with up to 100,000 hex characters of call data. */
  callData: 256 * KiB,
  /** A signed transaction to broadcast (Bitcoin's standard limit is 400,000 bytes, in hex 800,000). */
  signedTransaction: 1_024 * KiB,
} as const;

/**
 * Gives every route its body limit: its own or the default, and never more than `ceiling`
 * (BODY_LIMIT_BYTES); documents it in the route's 413. Registered after the hooks that add the 413.
 */
export function applyBodyLimits(app: FastifyInstance, ceiling: number): void {
  app.addHook('onRoute', (route) => {
    route.bodyLimit = Math.min(route.bodyLimit ?? BODY_LIMITS.default, ceiling);
    const response = route.schema?.response;
    if (typeof response === 'object' && response !== null && 413 in response) {
      const limit = route.bodyLimit;
      Object.assign(response, {
        413: errorResponse(
          413,
          `The body is over this route's limit of ${limit.toLocaleString('en')} bytes, or a JSON body holds more than ${REQUEST_MAX_JSON_VALUES.toLocaleString('en')} values`,
        ),
      });
    }
  });
}
