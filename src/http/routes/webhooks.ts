import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { type ChainName, isChainName } from '../../chains/types.ts';
import { ApiError } from '../../errors.ts';
import { retryNotification } from '../../webhooks/deliverer.ts';
import { toJsonText } from '../../webhooks/json-text.ts';
import type { WebhookInput } from '../../webhooks/subscriptions.ts';
import { sendOk } from '../envelope.ts';
import { PageQuery, PaginatedEnvelope, sendPage } from '../pagination.ts';
import { routeSchema } from '../route-schema.ts';

const tags = ['webhooks'];
const ChainParam = Type.Object({
  chain: Type.String({ description: 'tron, ethereum, bsc, polygon, arbitrum, solana, bitcoin' }),
});
const IdParams = Type.Object({ chain: Type.String(), id: Type.String({ description: 'Webhook id (uuid)' }) });
const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

const WebhookBody = Type.Object({
  url: Type.String({
    description: 'http(s) URL that receives the notifications; private and local addresses are refused',
  }),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  contractaddress: Type.Optional(Type.String()),
  token_id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  type: Type.Optional(
    Type.String({
      description:
        'Tron TRX|TRC10|TRC20|TRC721; Ethereum/Arbitrum ETH|ERC20|ERC721; BSC BNB|BEP20|BEP721; Polygon POL|ERC20|ERC721; Solana SOL|SPL; Bitcoin BTC',
    }),
  ),
  confirmations: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 1000 }), Type.String()], {
      description: 'Blocks deep before notifying (default 0: on inclusion)',
    }),
  ),
  notify_reverted: Type.Optional(
    Type.Union([Type.Boolean(), Type.String()], {
      description: 'Also notify when a notified transfer leaves the chain in a reorg',
    }),
  ),
  retry: Type.Optional(
    Type.String({
      description:
        'none (default, as Chaingateway: a failed notification waits for a manual retry) or backoff (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; Retry-After honoured)',
    }),
  ),
});

const WebhookOut = Type.Object({
  id: Type.String(),
  blockchain: Type.String(),
  network: Type.String(),
  url: Type.String(),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  contractaddress: Nullable(Type.String()),
  token_id: Nullable(Type.String()),
  type: Nullable(Type.String()),
  confirmations: Type.Integer(),
  notify_reverted: Type.Boolean(),
  retry: Type.String(),
  is_active: Type.Boolean(),
  is_invalid: Type.Boolean(),
  invalid_reason: Nullable(Type.String()),
  old_id: Type.Null(),
  created_at: Type.String(),
  updated_at: Type.String(),
  deleted_at: Nullable(Type.String()),
});

const NotificationOut = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event: Type.String({ description: 'transfer or reverted' }),
  txid: Type.String(),
  type: Type.String(),
  contractaddress: Nullable(Type.String()),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  tokenid: Nullable(Type.String()),
  amount: Type.Number({
    description:
      "In the asset's units, exactly as the receiver got it: the literal may hold more digits than a double (0.123456789012345678); read it with a decimal-aware JSON parser, or use amount_raw",
  }),
  amount_raw: Type.String({
    description: 'Base units (wei, sun, token units) as an integer string: use it for accounting',
  }),
  blocknumber: Type.String(),
  status: Type.String({
    description: 'pending, delivering, delivered, failed, or cancelled (its block left the chain first)',
  }),
  url: Type.String(),
  success: Type.Boolean(),
  attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  response: Nullable(Type.String({ description: "First KiB of the receiver's last answer" })),
  next_attempt_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  network: Type.String(),
  blockchain: Type.String(),
});

const Created = Type.Object({
  webhook: Type.String({ description: 'The new webhook id' }),
  secret: Type.String({
    description: 'Signing secret (whsec_...), shown once: verify webhook-signature and X-Signature with it',
  }),
});

function chainOf(raw: string): ChainName {
  if (!isChainName(raw)) throw new ApiError(404, 'Unsupported blockchain');
  return raw;
}

/**
 * Webhook subscriptions and their notification log for every chain, under `/api/v2/{chain}/webhooks`,
 * plus the spec's chain-less `POST /api/v2/webhooks` (Tron unless `blockchain` says otherwise).
 */
export async function webhookRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const { webhooks, notificationLog } = ctx;
  const createSchema = (summary: string, withBlockchain: boolean) =>
    routeSchema({
      summary,
      description:
        'At least one of from, to, contractaddress, token_id is required; addresses are checked for the chain. Counts against the webhooks quota (422 when full).',
      tags,
      ...(withBlockchain ? {} : { params: ChainParam }),
      body: withBlockchain
        ? Type.Intersect([WebhookBody, Type.Object({ blockchain: Type.Optional(Type.String()) })])
        : WebhookBody,
      data: Created,
      status: 201,
      errors: [404],
    });

  app.post<{ Params: { chain: string }; Body: WebhookInput }>(
    '/api/v2/:chain/webhooks',
    { schema: createSchema('Subscribe to matching transfers', false) },
    async (request, reply) => {
      const chain = chainOf(request.params.chain);
      return sendOk(
        reply,
        await webhooks.create(request.userId, chain, request.network, request.body),
        'Webhook created',
        201,
      );
    },
  );

  app.post<{ Body: WebhookInput & { blockchain?: string } }>(
    '/api/v2/webhooks',
    {
      schema: createSchema(
        "Subscribe (the spec's chain-less form: Tron unless `blockchain` names another chain)",
        true,
      ),
    },
    async (request, reply) => {
      const chain = chainOf((request.body.blockchain ?? 'tron').toLowerCase());
      ctx.registry.get(chain, request.network);
      return sendOk(
        reply,
        await webhooks.create(request.userId, chain, request.network, request.body),
        'Webhook created',
        201,
      );
    },
  );

  app.get<{ Params: { chain: string } }>(
    '/api/v2/:chain/webhooks',
    {
      schema: routeSchema({
        summary: 'Your webhooks on this chain and network',
        tags,
        params: ChainParam,
        data: Type.Array(WebhookOut),
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await webhooks.list(request.userId, chainOf(request.params.chain), request.network),
        'Webhooks fetched',
      ),
  );

  const notificationsPage = (failedOnly: boolean) => ({
    schema: routeSchema({
      summary: failedOnly
        ? 'Failed notifications (not sent again on their own; retry them), 15 per page'
        : "Every notification with its delivery state, attempts and the receiver's last answer, 15 per page",
      tags,
      params: ChainParam,
      querystring: PageQuery,
      data: Type.Array(NotificationOut),
      successBody: PaginatedEnvelope(NotificationOut),
      errors: [404],
    }),
  });
  for (const failedOnly of [false, true]) {
    app.get<{ Params: { chain: string }; Querystring: { page: number } }>(
      `/api/v2/:chain/webhooks/notifications${failedOnly ? '/failed' : ''}`,
      notificationsPage(failedOnly),
      async (request, reply) => {
        const page = await notificationLog.list(
          request.userId,
          chainOf(request.params.chain),
          request.network,
          request.query.page,
          failedOnly,
        );
        // The schema's serializer would write `amount` as a double; this writes its exact literal.
        reply.type('application/json; charset=utf-8').serializer(toJsonText);
        return sendPage(request, reply, page, 'Notifications fetched');
      },
    );
  }

  app.post<{ Params: { chain: string; id: string } }>(
    '/api/v2/:chain/webhooks/notifications/:id/retry',
    {
      schema: routeSchema({
        summary:
          'Send a failed notification again (same id); it leaves the failed list, and returns there if it fails again',
        tags,
        params: Type.Object({ chain: Type.String(), id: Type.String() }),
        data: Type.Object({ id: Type.String(), status: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const chain = chainOf(request.params.chain);
      const status = await notificationLog.assertOwned(
        request.userId,
        chain,
        request.network,
        request.params.id,
      );
      const id = request.params.id.toLowerCase();
      if (status !== 'failed' || !(await retryNotification(ctx.store, request.userId, id))) {
        throw new ApiError(422, `Only a failed notification can be retried; this one is ${status}`);
      }
      return sendOk(reply, { id, status: 'pending' }, 'Notification queued for delivery');
    },
  );

  app.get<{ Params: { chain: string; id: string } }>(
    '/api/v2/:chain/webhooks/:id',
    {
      schema: routeSchema({
        summary: 'One webhook',
        tags,
        params: IdParams,
        data: WebhookOut,
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await webhooks.get(request.userId, chainOf(request.params.chain), request.network, request.params.id),
        'Webhook fetched',
      ),
  );

  app.put<{ Params: { chain: string; id: string }; Body: WebhookInput }>(
    '/api/v2/:chain/webhooks/:id',
    {
      schema: routeSchema({
        summary: "Replace a webhook's filter and options (same body as POST); re-enables a disabled webhook",
        tags,
        params: IdParams,
        body: WebhookBody,
        data: WebhookOut,
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await webhooks.update(
          request.userId,
          chainOf(request.params.chain),
          request.network,
          request.params.id,
          request.body,
        ),
        'Webhook updated',
      ),
  );

  app.delete<{ Params: { chain: string; id: string } }>(
    '/api/v2/:chain/webhooks/:id',
    {
      schema: routeSchema({
        summary: 'Delete a webhook (frees webhook quota)',
        tags,
        params: IdParams,
        data: Type.Array(Type.Never()),
        errors: [404],
      }),
    },
    async (request, reply) => {
      await webhooks.remove(
        request.userId,
        chainOf(request.params.chain),
        request.network,
        request.params.id,
      );
      return sendOk(reply, [], 'Webhook deleted');
    },
  );

  app.post<{ Params: { chain: string; id: string } }>(
    '/api/v2/:chain/webhooks/:id/rotate-secret',
    {
      schema: routeSchema({
        summary: 'A new signing secret; the previous one keeps signing beside it for 24 hours',
        tags,
        params: IdParams,
        data: Type.Object({
          webhook: Type.String(),
          secret: Type.String(),
          previous_secret_valid_until: Type.String(),
        }),
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await webhooks.rotateSecret(
          request.userId,
          chainOf(request.params.chain),
          request.network,
          request.params.id,
        ),
        'Secret rotated',
      ),
  );
}
