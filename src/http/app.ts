import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AccountChangeListener } from '../accounts/account-change-listener.ts';
import type { AppContext } from '../app-context.ts';
import { FAMILIES } from '../chains/families.ts';
import { checkAddressFields } from './address-fields.ts';
import { applyBodyLimits } from './body-limits.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { cachedSerializerCompiler } from './cached-serializers.ts';
import { registerCompression } from './compression.ts';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './error-handling.ts';
import { guardedServerFactory } from './http-server.ts';
import { documentIdempotencyKeys, registerIdempotency } from './idempotency.ts';
import { requestDurationRecorder } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import { registerRequestContext } from './request-context.ts';
import { OneLinePerRequest } from './request-log.ts';
import { lazyRequestLoggers } from './request-logger.ts';
import { decorateRoutePattern } from './route-pattern.ts';
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

/**
 * A client's X-Request-Id is kept only when it has the shape of the ids the gateway makes (a UUID), so a
 * proxy's id follows the request through the logs, but nothing else sent in it (a token pasted in by
 * mistake, a long or odd value) is ever echoed or logged.
 */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Builds the HTTP API on a shared context; `extraRoutes` lets tests add routes of their own. */
export async function buildApp(
  ctx: AppContext,
  extraRoutes: ((app: FastifyInstance, options: { ctx: AppContext }) => Promise<void>)[] = [],
): Promise<FastifyInstance> {
  // Every route's input is typed from its TypeBox schema, in every plugin registered below.
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    logController: new OneLinePerRequest(),
    childLoggerFactory: lazyRequestLoggers,
    bodyLimit: ctx.config.bodyLimitBytes,
    serverFactory: guardedServerFactory({
      requestTimeoutMs: ctx.config.requestTimeoutMs,
      maxConnectionsPerClient: ctx.config.maxConnectionsPerClient,
    }),
    trustProxy: ctx.config.trustProxy,
    rewriteUrl: (request) => rewriteLegacyPrefix(request.url ?? '/'),
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 256 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  decorateRoutePattern(app);
  app.setValidatorCompiler(strictValidatorCompiler());
  app.setSerializerCompiler(cachedSerializerCompiler);
  checkAddressFields(app, { families: FAMILIES, settings: ctx.config.familySettings });

  const { answerUnknownRoute, noteDatabaseBack } = registerErrorHandling(
    app,
    (chain) => ctx.registry.supports(chain),
    ctx.troubleLog,
  );
  // First on every request: its id on the answer, and an unknown route answered before the body is read (a
  // request for no route costs no parsing, whatever it carries). `is404` reads the route's context;
  // `routeOptions` would build the route's options anew per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    if (request.is404) answerUnknownRoute(request, reply);
    else done();
  });
  await registerBodyParsers(app, ctx.config.bodyLimitBytes);
  refuseNulCharacters(app);
  documentIdempotencyKeys(app);
  await registerOpenApi(app);
  applyBodyLimits(app, ctx.config.bodyLimitBytes);
  const giveBackUnusedUnit = registerRequestContext(app, ctx);
  // Other instances' revocations and plan changes empty this one's identity caches (Postgres).
  const accountChanges = new AccountChangeListener({
    changes: ctx.accountChanges,
    store: ctx.store,
    databaseUrl: ctx.config.databaseUrl,
    logger: ctx.logger,
  });
  accountChanges.start();
  app.addHook('onClose', () => accountChanges.stop());
  registerIdempotency(app, ctx);
  const recordDuration = requestDurationRecorder(ctx.metrics);
  // After every answer, in one hook: its duration, the end of a database outage, the request's quota unit
  // given back when it failed.
  app.addHook('onResponse', (request, reply, done) => {
    recordDuration(request, reply);
    noteDatabaseBack(request, reply);
    const givenBack = giveBackUnusedUnit(request, reply);
    if (givenBack === undefined) done();
    else givenBack.then(() => done(), done);
  });
  // Last of the hooks that see an answer's body: the others (idempotency) read it uncompressed.
  registerCompression(app);

  await app.register(healthRoutes, { ctx });
  await app.register(accountRoutes, { ctx });
  await app.register(apiTokenRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(dashboardRoutes);
  await app.register(chainRoutes, { ctx, families: FAMILIES });
  await app.register(webhookRoutes, { ctx });
  await app.register(pricesRoutes, { prices: ctx.prices });
  for (const routes of extraRoutes) await app.register(routes, { ctx });
  if (ctx.faucets) await app.register(faucetRoutes, { ctx, faucets: ctx.faucets });
  return app;
}
