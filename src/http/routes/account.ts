import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { thenOrNow } from '../../maybe-promise.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Quota = Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' });

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
  quotas_left: Type.Object(
    { webhooks: Quota, addresses: Quota, requests: Quota, transactions: Quota },
    { description: 'What is left this period (GET /api/account/plan: out of what)' },
  ),
  sponsored_fees: Type.Array(
    Type.Object({
      chain: Type.String(),
      network: Type.String(),
      symbol: Type.String({ description: 'The chain’s coin, which the amounts are in' }),
      allowance: Type.String({ description: 'What the plan lets the sponsors pay per quota period' }),
      spent: Type.String({ description: 'Spent this period, and held for jobs still running' }),
      left: Type.String(),
    }),
    {
      description:
        'The plan’s allowance of fees the gateway’s sponsors pay for you (paymaster, sweeps, activations), per chain and network it names; empty: none',
    },
  ),
});

const UsageQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 366,
      default: 30,
      description: 'How many UTC days back, today included',
    }),
  ),
});

const RequestUsage = Type.Object({
  quota: Quota,
  period: Type.String({ description: 'day, month or year: how often the requests quota resets' }),
  period_start: Type.String({ description: 'Start of the current quota period (ISO)' }),
  period_end: Type.String({ description: 'When the quota resets next (ISO)' }),
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'UTC date, YYYY-MM-DD' }),
      requests: Type.Integer({ description: 'Requests counted that day, this one included' }),
    }),
    { description: 'Oldest first, one per day, today last; a day without requests is 0' },
  ),
});

export const accountRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/account',
    {
      config: { whileLapsed: true },
      schema: routeSchema({
        summary: 'Plan, subscription and what is left of each quota',
        description:
          'This request itself counts against the requests quota before quotas_left is computed. It still answers when the plan has lapsed (as do the plan, the token routes and sign-out; every other answers 402), so `status`, `ends_at` and `is_subscribed` say why.',
        tags: ['account'],
        data: AccountInfo,
        whileLapsed: true,
      }),
    },
    // Without a promise where the overview is at hand (a plan that limits nothing but requests).
    (request, reply) => {
      const { identity } = request;
      if (identity === null) throw new Error('GET /api/account ran without authentication');
      return thenOrNow(ctx.accounts.info(identity), (info) =>
        thenOrNow(ctx.sponsorship.allowances(identity.userId, identity.plan), (sponsored_fees) =>
          // The overview is made for this answer alone: completed in place, not copied.
          sendOk(reply, Object.assign(info, { sponsored_fees }), 'Account info fetched'),
        ),
      );
    },
  );

  app.get(
    '/api/account/usage',
    {
      config: { whileLapsed: true },
      schema: routeSchema({
        summary: "Requests used per day, against the plan's requests quota",
        description:
          "Per UTC day over the last `days`, the requests counted against the quota (every API call, the dashboard's included), with the quota and its current period. Counts are written in batches within a quarter second.",
        tags: ['account'],
        querystring: UsageQuery,
        data: RequestUsage,
        whileLapsed: true,
      }),
    },
    async (request, reply) =>
      sendOk(reply, await ctx.quotas.requestUsage(request.userId, request.query.days ?? 30), 'Usage fetched'),
  );

  app.get(
    '/api/account/plan',
    {
      config: { whileLapsed: true },
      schema: routeSchema({
        summary: "Your plan's quotas per period (what quotas_left counts down from) and its rate limit",
        tags: ['account'],
        data: Type.Object({
          name: Type.String(),
          period: Type.String({
            description: 'day, month or year: how often the request and transaction quotas reset',
          }),
          quotas: Type.Object({ webhooks: Quota, addresses: Quota, requests: Quota, transactions: Quota }),
          rate: Type.Union(
            [
              Type.Object({
                requests: Type.Integer({ description: 'A burst of this many requests at once' }),
                seconds: Type.Integer({ description: 'given back evenly over this many seconds' }),
              }),
              Type.Null(),
            ],
            { description: 'Rate limit per API token (the RateLimit-* headers count it down); null: none' },
          ),
        }),
        whileLapsed: true,
      }),
    },
    async (request, reply) => sendOk(reply, await ctx.accounts.plan(request.userId), 'Plan fetched'),
  );
};
