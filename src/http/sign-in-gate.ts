import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { RateLimiter } from '../accounts/rate-limiter.ts';
import type { PlanRate } from '../config.ts';
import { ApiError } from '../errors.ts';
import { clientKeyOf } from './client-address.ts';

export const JSON_ONLY = 'This route takes a JSON body only: send Content-Type: application/json';

/** The public routes that derive a password before anyone is known. */
export type AnonymousEntry = 'sign-in' | 'sign-up';

/**
 * What the public sign-in and sign-up check first, in `onRequest`, before the body is read or anything is
 * derived:
 * - the body must be JSON. A page on another site can make a browser post a form (urlencoded, multipart,
 *   text/plain) here without asking, and so sign its visitor in to the attacker's account (login CSRF);
 *   a JSON body from another origin needs a CORS preflight, which the gateway never grants.
 * - a budget per client address (`rate`, the GCRA of the plans' rates, shared through Redis when it is
 *   configured): past it, 429 with Retry-After. Each sign-in costs a 64 MiB derivation, even for an
 *   unknown email; this bounds what one address can make the gateway derive.
 */
export function anonymousEntryGate(
  limiter: RateLimiter,
  rate: PlanRate,
  entry: AnonymousEntry,
  refusals: Counter<'entry'>,
) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!isJson(request.headers['content-type'])) throw new ApiError(415, JSON_ONLY);
    const decision = await limiter.take(`rate:client:${entry}:${clientKeyOf(request.ip)}`, rate);
    if (decision.allowed) return;
    refusals.inc({ entry });
    const retry = String(decision.retryAfterSeconds);
    throw new ApiError(429, `Too many ${entry}s from this address; retry in ${retry} s`, [], {
      'Retry-After': retry,
    });
  };
}

/** Refusals by the budgets per client address, one counter for both routes. */
export function anonymousEntryRefusals(registry: Registry): Counter<'entry'> {
  return new Counter({
    name: 'switchyard_sign_in_limited_total',
    help: 'Sign-ins and sign-ups refused with 429 by the budget per client address, by entry (sign-in, sign-up)',
    labelNames: ['entry'] as const,
    registers: [registry],
  });
}

/** `application/json`, with parameters (`; charset=utf-8`) or none. */
function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}
