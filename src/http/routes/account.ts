import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Quota = Type.Union([Type.Integer(), Type.Null()], {
  description: 'What is left this period; null: unlimited',
});

const AccountInfo = Type.Object({
  plan: Type.String({ description: 'Plan name, upper case' }),
  is_subscribed: Type.String({
    description: '"true" while the plan gives access, else "false" (a string, as Chaingateway sends it)',
  }),
  is_yearly: Type.Integer({ description: '1 for a yearly subscription, else 0' }),
  ends_at: Nullable(Type.String({ description: 'End of the subscription, ISO date; null: open-ended' })),
  quota_reset: Nullable(Type.String({ description: 'When the request and transaction quotas reset (ISO)' })),
  status: Type.String({
    description:
      'active, cancelled (access runs until ends_at) or expired (past ends_at; access runs on through the grace period, PLAN_GRACE_DAYS)',
  }),
  payment_method: Nullable(Type.String()),
  crypto_payment: Type.Object({
    currency: Nullable(Type.String()),
    address: Nullable(Type.String()),
    eur_amount: Nullable(Type.String()),
    crypto_amount: Nullable(Type.String()),
    qr_code: Nullable(Type.String()),
  }),
  quotas_left: Type.Object({ webhooks: Quota, addresses: Quota, requests: Quota, transactions: Quota }),
});

export async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get(
    '/api/account',
    {
      config: { whileLapsed: true },
      schema: routeSchema({
        summary: 'Plan, subscription and what is left of each quota',
        description:
          'This request itself counts against the requests quota before quotas_left is computed. It is the one route that still answers when the plan has lapsed (every other answers 402), so `status`, `ends_at` and `is_subscribed` say why.',
        tags: ['account'],
        data: AccountInfo,
        whileLapsed: true,
      }),
    },
    async (request, reply) => sendOk(reply, await ctx.accounts.info(request.userId), 'Account info fetched'),
  );
}
