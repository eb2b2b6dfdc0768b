import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import { hasAccess, standingOf } from '../accounts/lifecycle.ts';
import type { Reservation } from '../accounts/quotas.ts';
import type { Identity } from '../accounts/users.ts';
import type { AppContext } from '../app-context.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../chains/registry.ts';
import type { Network } from '../chains/types.ts';
import { ApiError, WrongPasswordAnswer } from '../errors.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import { type AuthenticatedBy, type AuthenticatedCaller, authenticate } from './auth.ts';
import { rateCheck } from './rate-limit.ts';
import { type AfterAnswer, addRouteHook } from './route-hooks.ts';

export const SESSION_ONLY = 'This route needs a dashboard session: sign in at /dashboard';

import { networkOf } from './network.ts';

declare module 'fastify' {
  interface FastifyRequest {
    network: Network;
    /** The caller; set on every route that is not public. */
    userId: string;
    /** The caller with their plan as authentication read them (at most a second old); null on public routes. */
    identity: Identity | null;
    quotaReservation: Reservation | null;
    /** The answer was a wrong wallet password (401, or Tron's 422 on a send): its quota unit is kept. */
    passwordGuessed: boolean;
    /** How the caller signed in: an API token or the dashboard's session. */
    authenticatedBy: AuthenticatedBy | null;
  }
  interface FastifyContextConfig {
    /** No token needed and no request quota used. */
    public?: boolean;
    /** Served while the caller's plan has lapsed (the account overview, to see why). */
    whileLapsed?: boolean;
    /** Only a dashboard session may call it (managing API tokens: a token cannot mint or revoke tokens). */
    sessionOnly?: boolean;
  }
}

/**
 * Per request, in order: the network header (422), the chain in the path (404), the token or the dashboard
 * session with its CSRF token on a change (401, 403), the plan's rate for that token (429 with
 * Retry-After; before the quota, so a refused request uses none), a plan that still gives access (402) and
 * one unit of the request quota (429). The unit is given back when the answer is not a success, except a
 * wrong password (401, or Tron's 422 `Validate signature error` on a send) or a throttled attempt (429):
 * guessing costs quota. Returns what gives the unit back, for app.ts's hook after the answer.
 */
export function registerRequestContext(app: FastifyInstance, ctx: AppContext): AfterAnswer {
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('userId', '');
  app.decorateRequest('identity', null);
  app.decorateRequest('quotaReservation', null);
  app.decorateRequest('passwordGuessed', false);
  app.decorateRequest('authenticatedBy', null);
  const checkRate = rateCheck(ctx.rateLimiter, ctx.metrics);

  /**
   * Each step answers at once from memory where it can, and the next step is called directly: a cached
   * caller's request makes no promise and no closure.
   */
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    config: FastifyContextConfig,
  ): MaybePromise<void> => {
    request.network = networkOf(request);
    const { params } = request;
    const chain =
      typeof params === 'object' && params !== null && 'chain' in params ? params.chain : undefined;
    if (typeof chain === 'string' && !ctx.registry.supports(chain))
      throw new ApiError(404, UNSUPPORTED_BLOCKCHAIN);
    const caller = authenticate(request, ctx.users, ctx.sessions);
    if (caller instanceof Promise) return caller.then((found) => admitCaller(request, reply, config, found));
    return admitCaller(request, reply, config, caller);
  };
  // Every authenticated answer counts and carries the RateLimit-* headers, a 403 or 402 too.
  const admitCaller = (
    request: FastifyRequest,
    reply: FastifyReply,
    config: FastifyContextConfig,
    caller: AuthenticatedCaller,
  ): MaybePromise<void> => {
    const { identity, by, tokenId } = caller;
    const checked = checkRate({ by, userId: identity.userId, tokenId }, identity.plan, reply);
    if (checked instanceof Promise) return checked.then(() => admitWithinRate(request, config, caller));
    return admitWithinRate(request, config, caller);
  };
  const admitWithinRate = (
    request: FastifyRequest,
    config: FastifyContextConfig,
    { identity, by }: AuthenticatedCaller,
  ): MaybePromise<void> => {
    const { userId, plan, terms } = identity;
    if (config.sessionOnly && by !== 'session') throw new ApiError(403, SESSION_ONLY);
    request.userId = userId;
    request.identity = identity;
    request.authenticatedBy = by;
    if (!config.whileLapsed && !hasAccess(terms, Date.now(), ctx.config.planGraceMs)) {
      const standing = standingOf(terms, new Date(), ctx.config.planGraceMs);
      if (!standing.active) throw new ApiError(402, standing.reason);
    }
    const reservation = ctx.quotas.reserve(userId, 'requests', plan);
    if (reservation instanceof Promise) {
      return reservation.then((taken) => {
        request.quotaReservation = taken;
      });
    }
    request.quotaReservation = reservation;
    return undefined;
  };
  /**
   * One route's hook, which knows the route's options (`request.routeOptions` builds them anew on every
   * read). A callback: Fastify makes no promise of its own for a request `admit` answers at once.
   */
  const identifyOn = (config: FastifyContextConfig): onRequestHookHandler => {
    const identify: onRequestHookHandler = (request, reply, done) => {
      let admitted: MaybePromise<void>;
      try {
        admitted = admit(request, reply, config);
      } catch (error) {
        return done(asError(error));
      }
      if (admitted instanceof Promise)
        admitted.then(
          () => done(),
          (error: unknown) => done(asError(error)),
        );
      else done();
    };
    return identify;
  };
  // Health, the document and its reference page read neither the network nor a token: they pay no hook.
  // Unknown paths have no route: they answer 404/405 without asking for a token.
  app.addHook('onRoute', (route) => {
    if (route.config?.public !== true) addRouteHook(route, 'onRequest', identifyOn(route.config ?? {}));
  });

  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof WrongPasswordAnswer) request.passwordGuessed = true;
  });

  // Most answers succeed, and pass after one comparison, without a promise.
  return (request, reply) => {
    const status = reply.statusCode;
    const reservation = request.quotaReservation;
    const guessed = request.passwordGuessed || status === 401 || status === 429;
    if (reservation === null || status < 400 || guessed) return undefined;
    return ctx.quotas.release(reservation);
  };
}

/** What a hook hands to Fastify's `done`: an Error, whatever was thrown. */
function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
