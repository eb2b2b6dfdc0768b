import type { FastifyReply } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { RateDecision, RateLimiter } from '../accounts/rate-limiter.ts';
import type { PlanConfig, PlanRate } from '../config.ts';
import { ApiError } from '../errors.ts';
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import type { AuthenticatedBy } from './auth.ts';

/** Who a rate budget belongs to: the API token, or (for the dashboard) the user's sessions together. */
export interface RateSubject {
  by: AuthenticatedBy;
  userId: string;
  /** The token's id when `by` is `token`. */
  tokenId: string | null;
}

/**
 * One budget per API token, so a user's tokens do not starve one another. A dashboard session counts per
 * user, all their sessions together: signing in again must not buy a fresh budget.
 */
export function rateKeyOf(subject: RateSubject): string {
  return subject.by === 'token' ? `rate:token:${subject.tokenId}` : `rate:sessions:${subject.userId}`;
}

/** Takes one request from the caller's budget; sets the RateLimit-* headers, or throws 429. */
export type RateCheck = (subject: RateSubject, plan: PlanConfig, reply: FastifyReply) => MaybePromise<void>;

/** The check the request context runs for every authenticated request, counting refusals by plan. */
export function rateCheck(limiter: RateLimiter, metrics: Registry): RateCheck {
  const refusals = new Counter({
    name: 'switchyard_rate_limited_requests_total',
    help: 'Authenticated requests refused with 429 by the per-token rate limit, by plan',
    labelNames: ['plan'] as const,
    registers: [metrics],
  });
  return (subject, plan, reply) => {
    const { rate } = plan;
    if (rate === null) return;
    return thenOrNow(limiter.take(rateKeyOf(subject), rate), (decision) => {
      // The three-header form of the IETF draft "RateLimit header fields for HTTP", on every answer.
      reply.header('RateLimit-Limit', String(decision.limit));
      reply.header('RateLimit-Remaining', String(decision.remaining));
      reply.header('RateLimit-Reset', String(decision.resetSeconds));
      if (decision.allowed) return;
      refusals.inc({ plan: plan.name });
      throw tooManyRequests(rate, subject.by, decision);
    });
  };
}

export function tooManyRequests(rate: PlanRate, by: AuthenticatedBy, decision: RateDecision): ApiError {
  const per = rate.seconds === 1 ? 'second' : `${rate.seconds} seconds`;
  const whose = by === 'token' ? 'this token' : "this account's dashboard sessions";
  const message = `Too many requests: ${rate.requests} per ${per} for ${whose}; retry in ${decision.retryAfterSeconds} s`;
  return new ApiError(429, message, [], { 'Retry-After': String(decision.retryAfterSeconds) });
}
