import type { FastifyInstance } from 'fastify';
import { standingOf } from '../accounts/lifecycle.ts';
import type { Reservation } from '../accounts/quotas.ts';
import type { AppContext } from '../app-context.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../chains/registry.ts';
import type { Network } from '../chains/types.ts';
import { ApiError } from '../errors.ts';
import { authenticate } from './auth.ts';
import { networkOf } from './network.ts';

declare module 'fastify' {
  interface FastifyRequest {
    network: Network;
    /** The caller; set on every route that is not public. */
    userId: string;
    quotaReservation: Reservation | null;
  }
  interface FastifyContextConfig {
    /** No token needed and no request quota used. */
    public?: boolean;
    /** Served while the caller's plan has lapsed (the account overview, to see why). */
    whileLapsed?: boolean;
  }
}

/**
 * Per request, in order: the network header (422), the chain in the path (404), the token (401), a plan
 * that still gives access (402) and one unit of the request quota (429). The unit is given back when the
 * answer is not a success, except a wrong password (401) or a throttled attempt (429): guessing costs quota.
 */
export function registerRequestContext(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('network', 'mainnet');
  app.decorateRequest('userId', '');
  app.decorateRequest('quotaReservation', null);

  app.addHook('onRequest', async (request) => {
    // Health, the document and its reference page read neither the network nor a token.
    if (request.routeOptions.config.public) return;
    request.network = networkOf(request);
    const chain = (request.params as Record<string, unknown> | undefined)?.['chain'];
    if (typeof chain === 'string' && !ctx.registry.supports(chain))
      throw new ApiError(404, UNSUPPORTED_BLOCKCHAIN);
    // Unknown paths have no route config: they answer 404/405 without asking for a token.
    if (request.routeOptions.url === undefined) return;
    const { userId, plan, terms } = await authenticate(request, ctx.users);
    request.userId = userId;
    if (!request.routeOptions.config.whileLapsed) {
      const standing = standingOf(terms, new Date(), ctx.config.planGraceMs);
      if (!standing.active) throw new ApiError(402, standing.reason);
    }
    request.quotaReservation = await ctx.quotas.reserve(userId, 'requests', plan);
  });

  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    if (request.quotaReservation !== null && status >= 400 && status !== 401 && status !== 429) {
      await ctx.quotas.release(request.quotaReservation);
    }
  });
}
