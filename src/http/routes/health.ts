import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { pingStore } from '../../store/store.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Health = Type.Object({ healthy: Type.Boolean() });

/** Liveness and readiness (the database answers); no token needed. Metrics have their own listener. */
export async function healthRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: routeSchema({
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        data: Health,
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
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        data: Health,
        public: true,
        errors: [503],
      }),
    },
    async (request, reply) => {
      try {
        await pingStore(ctx.store);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).send({ status: 503, ok: false, message: 'Database unavailable', errors: [] });
      }
      return sendOk(reply, { healthy: true }, 'Ready');
    },
  );
}
