import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { isServedChain, servedChains } from '../../chains/families.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../../chains/registry.ts';
import type { ChainName, Network } from '../../chains/types.ts';
import { ApiError } from '../../errors.ts';
import { toJsonText } from '../../json/json-text.ts';
import { webhookRules } from '../../webhooks/chain-rules.ts';
import { retryFailedNotification } from '../../webhooks/delivery-commands.ts';
import { deliveryStats } from '../../webhooks/delivery-stats.ts';
import { type WebhookInput, webhookInputSchema } from '../../webhooks/webhook-input.ts';
import { sendOk } from '../envelope.ts';
import { PageQuery, PaginatedEnvelope, sendPage } from '../pagination.ts';
import { routeSchema } from '../route-schema.ts';

const tags = ['webhooks'];
const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

/** The schemas that name the served chains, built with the routes (the chains are known by then). */
function chainSchemas() {
  /** The chains served; any other name answers 404 `Unsupported blockchain` before validation. */
  const Chain = Type.String({
    enum: servedChains(),
    description: 'A chain this gateway serves; any other answers 404 `Unsupported blockchain`',
  });
  const ChainParam = Type.Object({ chain: Chain });
  const IdParams = Type.Object({ chain: Chain, id: Type.String({ description: 'Webhook id (uuid)' }) });
  const WebhookBody = webhookInputSchema(
    servedChains().map((chain) => `\`${chain}\`: ${webhookRules(chain).types.join(', ')}`),
  );
  /** The spec's chain-less form names its chain in the body. */
  const ChainlessWebhookBody = Type.Intersect([
    WebhookBody,
    Type.Object({
      blockchain: Type.Optional(
        Type.String({ ...Chain, description: `Any case; default \`tron\`. ${Chain.description}` }),
      ),
    }),
  ]);
  return { Chain, ChainParam, IdParams, WebhookBody, ChainlessWebhookBody };
}

const WebhookOut = Type.Object({
  id: Type.String(),
  blockchain: Type.String(),
  network: Type.String(),
  url: Type.String(),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  contractaddress: Nullable(Type.String()),
  token_id: Nullable(Type.String()),
  comment: Nullable(Type.String({ description: 'The comment a transfer must carry (TON); null for any' })),
  type: Nullable(Type.String()),
  confirmations: Type.Integer(),
  notify_reverted: Type.Boolean(),
  notify_pending: Type.Boolean(),
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
  event: Type.String({
    description:
      'transfer, reverted, pending, dropped (a send of yours answered 201 that will never be mined), or failed (a transfer a block holds that did not pay its receiver: a bounced TON transfer)',
  }),
  txid: Type.String(),
  type: Type.String(),
  contractaddress: Nullable(Type.String()),
  from: Nullable(Type.String()),
  to: Nullable(Type.String()),
  tokenid: Nullable(Type.String()),
  amount: Type.Number({
    description:
      "In the asset's units with every decimal of the asset (12.500000 of a 6-decimal token), exactly as the receiver got it: the literal may hold more digits than a double (0.123456789012345678); read it with a decimal-aware JSON parser, or use amount_raw",
  }),
  amount_raw: Type.String({
    description: 'Base units (wei, sun, token units) as an integer string: use it for accounting',
  }),
  blocknumber: Nullable(Type.String({ description: 'Null for a `pending` notification' })),
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
    description:
      'Signing secret (whsec_...): verify webhook-signature and X-Signature with it; GET .../{id}/secret shows it again',
  }),
});

function chainOf(raw: string): ChainName {
  if (!isServedChain(raw)) throw new ApiError(404, UNSUPPORTED_BLOCKCHAIN);
  return raw;
}

/**
 * The chain-less form names its chain in the body, in any case: a chain not served answers 404 (as it
 * does in a path) before the body's schema, which lists the served chains in lower case, is checked.
 */
async function resolveBodyChain(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || !('blockchain' in body)) return;
  if (typeof body.blockchain !== 'string') return;
  body.blockchain = chainOf(body.blockchain.toLowerCase());
}

/**
 * Webhook subscriptions and their notification log for every chain, under `/api/v2/{chain}/webhooks`,
 * plus the spec's chain-less `POST /api/v2/webhooks` (Tron unless `blockchain` says otherwise).
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { webhooks, notificationLog } = ctx;
  const { Chain, ChainParam, IdParams, WebhookBody, ChainlessWebhookBody } = chainSchemas();
  const createSchema = <Params extends TSchema | undefined, Body extends TSchema>(
    summary: string,
    params: Params,
    body: Body,
  ) =>
    routeSchema({
      summary,
      description:
        'At least one of from, to, contractaddress, token_id, comment is required; addresses are checked for the chain. Counts against the webhooks quota (422 when full).',
      tags,
      params,
      body,
      data: Created,
      status: 201,
      errors: [404],
    });
  /** A new subscription of the caller on the chain and network, answered with its id and secret. */
  const subscribe = async (
    request: { userId: string; network: Network; body: WebhookInput },
    reply: FastifyReply,
    chain: ChainName,
  ) =>
    sendOk(
      reply,
      await webhooks.create(request.userId, chain, request.network, request.body),
      'Webhook created',
      201,
    );

  app.post(
    '/api/v2/:chain/webhooks',
    { schema: createSchema('Subscribe to matching transfers', ChainParam, WebhookBody) },
    async (request, reply) => subscribe(request, reply, chainOf(request.params.chain)),
  );

  app.post(
    '/api/v2/webhooks',
    {
      preValidation: resolveBodyChain,
      schema: createSchema(
        "Subscribe (the spec's chain-less form: Tron unless `blockchain` names another chain)",
        undefined,
        ChainlessWebhookBody,
      ),
    },
    async (request, reply) => {
      const chain = chainOf(request.body.blockchain ?? 'tron');
      ctx.registry.get(chain, request.network);
      return subscribe(request, reply, chain);
    },
  );

  app.get(
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
    app.get(
      `/api/v2/:chain/webhooks/notifications${failedOnly ? '/failed' : ''}`,
      notificationsPage(failedOnly),
      async (request, reply) => {
        const chain = chainOf(request.params.chain);
        const page = await notificationLog.list(
          request.userId,
          chain,
          request.network,
          request.query.page ?? 1,
          failedOnly,
        );
        // The schema's serializer would write `amount` as a double; this writes its exact literal.
        reply.type('application/json; charset=utf-8').serializer(toJsonText);
        const path = `/api/v2/${chain}/webhooks/notifications${failedOnly ? '/failed' : ''}`;
        return sendPage(path, reply, page, 'Notifications fetched');
      },
    );
  }

  const StatsQuery = Type.Object({
    hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 168,
        default: 24,
        description: 'How many hours back, this one included',
      }),
    ),
    chain: Type.Optional(
      Type.String({
        description:
          "Only this chain's webhooks; default every chain. A chain this gateway does not serve answers 404 `Unsupported blockchain`",
      }),
    ),
  });
  const DeliveryHour = Type.Object({
    hour: Type.String({ description: "The hour's start (ISO, UTC)" }),
    delivered: Type.Integer({ description: 'Attempts answered 2xx (one per notification delivered)' }),
    failed: Type.Integer({
      description: 'Attempts without a 2xx: another status, a timeout, a refused connection',
    }),
    retried: Type.Integer({
      description: "Attempts that were not their notification's first (backoff or Retry)",
    }),
    latency_ms: Type.Object(
      {
        average: Type.Union([Type.Integer(), Type.Null()]),
        max: Type.Union([Type.Integer(), Type.Null()]),
      },
      {
        description:
          'Milliseconds from the block time of each `transfer` notification delivered this hour to its delivery (its first 2xx); null: none delivered',
      },
    ),
  });
  app.get(
    '/api/webhooks/stats',
    {
      schema: routeSchema({
        summary:
          'Delivery health of your webhooks per hour: delivered, failed, retried, block-to-delivery latency',
        description:
          'On the network X-Network names, every chain or the one `chain` names; oldest hour first, the current hour last, hours without attempts as zeros.',
        tags,
        querystring: StatsQuery,
        data: Type.Object({
          hours: Type.Integer(),
          chain: Type.Union([Type.String(), Type.Null()]),
          network: Type.String(),
          buckets: Type.Array(DeliveryHour),
        }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const chain = request.query.chain === undefined ? null : chainOf(request.query.chain);
      const hours = request.query.hours ?? 24;
      const buckets = await deliveryStats(ctx.store.db, ctx.store.dialect, {
        userId: request.userId,
        network: request.network,
        chain,
        hours,
        now: new Date(),
      });
      return sendOk(reply, { hours, chain, network: request.network, buckets }, 'Delivery stats fetched');
    },
  );

  /** The schema of an operation on the one webhook (or notification) its path names. */
  const oneWebhook = (summary: string, data: TSchema, description?: string) =>
    routeSchema({
      summary,
      ...(description === undefined ? {} : { description }),
      tags,
      params: IdParams,
      data,
      errors: [404],
    });
  /** What the path names, as the service's calls take it: the caller, the chain, the network, the id. */
  const named = (request: { userId: string; network: Network; params: Static<typeof IdParams> }) =>
    [request.userId, chainOf(request.params.chain), request.network, request.params.id] as const;

  app.post(
    '/api/v2/:chain/webhooks/notifications/:id/retry',
    {
      schema: routeSchema({
        summary:
          'Send a failed notification again (same id); it leaves the failed list, and returns there if it fails again',
        tags,
        params: Type.Object({ chain: Chain, id: Type.String({ description: 'Notification id (uuid)' }) }),
        data: Type.Object({ id: Type.String(), status: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const id = await retryFailedNotification(ctx.store, ctx.outbox, ...named(request));
      return sendOk(reply, { id, status: 'pending' }, 'Notification queued for delivery');
    },
  );

  app.get(
    '/api/v2/:chain/webhooks/:id',
    { schema: oneWebhook('One webhook', WebhookOut) },
    async (request, reply) => sendOk(reply, await webhooks.get(...named(request)), 'Webhook fetched'),
  );

  app.put(
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
      sendOk(reply, await webhooks.update(...named(request), request.body), 'Webhook updated'),
  );

  app.delete(
    '/api/v2/:chain/webhooks/:id',
    { schema: oneWebhook('Delete a webhook (frees webhook quota)', Type.Array(Type.Never())) },
    async (request, reply) => {
      await webhooks.remove(...named(request));
      return sendOk(reply, [], 'Webhook deleted');
    },
  );

  app.get(
    '/api/v2/:chain/webhooks/:id/secret',
    {
      schema: oneWebhook(
        "The webhook's current signing secret (whsec_...)",
        Type.Object({ secret: Type.String() }),
        'What verifies webhook-signature and X-Signature now; after a rotation, the new one.',
      ),
    },
    async (request, reply) => sendOk(reply, await webhooks.secret(...named(request)), 'Secret fetched'),
  );

  app.post(
    '/api/v2/:chain/webhooks/:id/rotate-secret',
    {
      schema: oneWebhook(
        'A new signing secret; the previous one keeps signing beside it for 24 hours',
        Type.Object({
          webhook: Type.String(),
          secret: Type.String(),
          previous_secret_valid_until: Type.String(),
        }),
      ),
    },
    async (request, reply) => sendOk(reply, await webhooks.rotateSecret(...named(request)), 'Secret rotated'),
  );
};
