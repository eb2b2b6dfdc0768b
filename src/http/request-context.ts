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
import { type MaybePromise, thenOrNow } from '../maybe-promise.ts';
import { type AuthenticatedBy, authenticate } from './auth.ts';
import { rateCheck } from './rate-limit.ts';
import { addRouteHook } from './route-hooks.ts';

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
 * guessing costs quota.
 */
export function registerRequestContext(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('userId', '');
  app.decorateRequest('identity', null);
  app.decorateRequest('quotaReservation', null);
  app.decorateRequest('passwordGuessed', false);
  app.decorateRequest('authenticatedBy', null);
  const checkRate = rateCheck(ctx.rateLimiter, ctx.metrics);

  /** Each step answers at once from memory where it can: a cached caller's request makes no promise. */
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
    return thenOrNow(authenticate(request, ctx.users, ctx.sessions), ({ identity, by, tokenId }) => {
      const { userId, plan, terms } = identity;
      // Every authenticated answer counts and carries the RateLimit-* headers, a 403 or 402 too.
      return thenOrNow(checkRate({ by, userId, tokenId }, plan, reply), () => {
        if (config.sessionOnly && by !== 'session') throw new ApiError(403, SESSION_ONLY);
        request.userId = userId;
        request.identity = identity;
        request.authenticatedBy = by;
        if (!config.whileLapsed && !hasAccess(terms, Date.now(), ctx.config.planGraceMs)) {
          const standing = standingOf(terms, new Date(), ctx.config.planGraceMs);
          if (!standing.active) throw new ApiError(402, standing.reason);
        }
        return thenOrNow(ctx.quotas.reserve(userId, 'requests', plan), (reservation) => {
          request.quotaReservation = reservation;
        });
      });
    });
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

  // A callback: most answers succeed, and pass on after one comparison without a promise.
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const reservation = request.quotaReservation;
    const guessed = request.passwordGuessed || status === 401 || status === 429;
    if (reservation === null || status < 400 || guessed) return done();
    ctx.quotas.release(reservation).then(() => done(), done);
  });
}

/** What a hook hands to Fastify's `done`: an Error, whatever was thrown. */
function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
