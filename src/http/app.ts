import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { FAMILIES } from '../chains/families.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './error-handling.ts';
import { documentIdempotencyKeys, registerIdempotency } from './idempotency.ts';
import { instrumentRequests } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerRequestContext } from './request-context.ts';
import { OneLinePerRequest } from './request-log.ts';
import { accountRoutes } from './routes/account.ts';
import { apiTokenRoutes } from './routes/api-tokens.ts';
import { chainRoutes } from './routes/chain/index.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { faucetRoutes } from './routes/faucet.ts';
import { healthRoutes } from './routes/health.ts';
import { pricesRoutes } from './routes/prices.ts';
import { sessionRoutes } from './routes/session.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { strictValidatorCompiler } from './strict-validation.ts';
import { refuseNulCharacters } from './text-guard.ts';

/** The spec's tutorials omit `/api`: `/v2/...` is served by the same routes as `/api/v2/...`. */
export function rewriteLegacyPrefix(url: string): string {
  return url === '/v2' || url.startsWith('/v2/') || url.startsWith('/v2?') ? `/api${url}` : url;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the HTTP API on a shared context; `extraRoutes` lets tests add routes of their own. */
export async function buildApp(
  ctx: AppContext,
  extraRoutes: ((app: FastifyInstance, options: { ctx: AppContext }) => Promise<void>)[] = [],
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    logController: new OneLinePerRequest(),
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    rewriteUrl: (request) => rewriteLegacyPrefix(request.url ?? '/'),
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 256 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  app.setValidatorCompiler(strictValidatorCompiler());

  registerErrorHandling(app, (chain) => ctx.registry.supports(chain), ctx.troubleLog);
  await registerBodyParsers(app, ctx.config.bodyLimitBytes);
  refuseNulCharacters(app);
  documentIdempotencyKeys(app);
  await registerOpenApi(app);
  registerRequestContext(app, ctx);
  registerIdempotency(app, ctx);
  instrumentRequests(app, ctx.metrics);
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });

  await app.register(healthRoutes, { ctx });
  await app.register(accountRoutes, { ctx });
  await app.register(apiTokenRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(dashboardRoutes);
  await app.register(chainRoutes, { ctx, families: FAMILIES });
  for (const parts of ctx.familyParts.values()) await app.register(parts.routes);
  await app.register(webhookRoutes, { ctx });
  await app.register(pricesRoutes, { prices: ctx.prices });
  for (const routes of extraRoutes) await app.register(routes, { ctx });
  if (ctx.faucets) await app.register(faucetRoutes, { ctx, faucets: ctx.faucets });
  return app;
}
