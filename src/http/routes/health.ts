import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { readinessOf, type SponsorReadiness } from '../../health/readiness.ts';
import { pingStore } from '../../store/store.ts';
import { FieldErrorSchema, sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Health = Type.Object({ healthy: Type.Boolean() });

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const EndpointReport = Type.Object({
  endpoint: Type.String({ description: 'Host and port of the node endpoint (never its path or query)' }),
  up: Type.Boolean({ description: 'It answered its last head probe; false until a probe has answered' }),
  height: Nullable(Type.Integer({ description: 'Head block number at its last answer' })),
  lag: Nullable(Type.Integer({ description: 'Blocks behind the highest head of the endpoints that are up' })),
  latencyMs: Nullable(Type.Integer({ description: 'Time its last probe took' })),
  error: Nullable(Type.String({ description: 'Why its last probe failed' })),
  checkedAt: Nullable(Type.String({ format: 'date-time', description: 'When it was last probed' })),
  disabled: Nullable(
    Type.String({
      description:
        'Why the gateway stopped using it (checked at start: a node on another network); null while it is used',
    }),
  ),
});

const ChainReport = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  required: Type.Boolean({ description: 'Readiness needs it (REQUIRED_CHAINS)' }),
  reachable: Type.Boolean({ description: 'At least one endpoint in use is up' }),
  endpoints: Type.Array(EndpointReport),
});

const SponsorReport = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  address: Type.String({ description: "The sponsor's custodial address (its key is never shown)" }),
  served: Type.Boolean({
    description:
      'The gateway serves this chain and network and its family can sponsor fees; false: the sponsor is kept but unused',
  }),
});

const Readiness = Type.Object({
  ready: Type.Boolean(),
  database: Type.Object({ up: Type.Boolean() }),
  chains: Type.Array(ChainReport),
  sponsors: Type.Array(SponsorReport, {
    description:
      'The fee sponsor (paymaster, sweeps) of each chain and network, as set with `cli sponsor set`; empty when none is set or the database does not answer. Never counts toward readiness.',
  }),
});

/** 503 keeps the whole report beside the reasons, so a probe's log shows why. */
const NotReady = Type.Object({
  status: Type.Integer({ description: 'Equal to the HTTP status' }),
  ok: Type.Literal(false),
  message: Type.String(),
  errors: Type.Array(FieldErrorSchema, { description: 'One per reason: `database`, or `<chain>:<network>`' }),
  data: Readiness,
});

/** Liveness and readiness; no token needed. Metrics have their own listener. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        data: Health,
        message: 'OK',
        public: true,
      }),
    },
    async (_request, reply) => sendOk(reply, { healthy: true }, 'OK'),
  );

  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Readiness: the database answers and every required chain has a reachable node',
        tags: ['operations'],
        data: Readiness,
        message: 'Ready',
        public: true,
        errors: [503],
        errorBodies: { 503: NotReady },
        because: {
          503: 'Not ready to serve: the database does not answer, or a required chain and network has no reachable node',
        },
      }),
    },
    async (request, reply) => {
      const databaseUp = await pingStore(ctx.store).then(
        () => true,
        (error: unknown) => {
          request.log.warn({ err: error }, 'readiness: the database does not answer');
          return false;
        },
      );
      const sponsors = databaseUp ? await sponsorsOf(ctx) : [];
      const report = readinessOf(ctx.nodeMonitor.status(), ctx.config, databaseUp, sponsors);
      if (report.ready) return sendOk(reply, report, 'Ready');
      const errors = [
        ...(databaseUp ? [] : [{ field: 'database', message: 'does not answer' }]),
        ...report.chains
          .filter((chain) => chain.required && !chain.reachable)
          .map((chain) => ({ field: `${chain.chain}:${chain.network}`, message: 'no reachable node' })),
      ];
      return reply.code(503).send({ status: 503, ok: false, message: 'Not ready', errors, data: report });
    },
  );
};

/** The sponsors the operator set, each with whether this gateway can pay fees with it. */
async function sponsorsOf(ctx: AppContext): Promise<SponsorReadiness[]> {
  const sponsors = await ctx.sponsorship.sponsors.list();
  return sponsors.map(({ chain, network, address }) => ({
    chain,
    network,
    address,
    served:
      ctx.sponsorship.feeSponsorOf(chain) !== undefined && ctx.registry.networksOf(chain).includes(network),
  }));
}
