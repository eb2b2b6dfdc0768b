import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { isServedChain, SERVED_CHAINS } from '../../chains/families.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../../chains/registry.ts';
import type { ChainName } from '../../chains/types.ts';
import { ApiError } from '../../errors.ts';
import { WEBHOOK_RULES } from '../../webhooks/chain-rules.ts';
import { retryFailedNotification } from '../../webhooks/delivery-commands.ts';
import { toJsonText } from '../../webhooks/json-text.ts';
import { MAX_CONFIRMATIONS, MAX_URL_LENGTH, type WebhookInput } from '../../webhooks/subscriptions.ts';
import { sendOk } from '../envelope.ts';
import { PageQuery, PaginatedEnvelope, sendPage } from '../pagination.ts';
import { routeSchema } from '../route-schema.ts';

const tags = ['webhooks'];
/** The chains served; any other name answers 404 `Unsupported blockchain` before validation. */
const Chain = Type.String({
  enum: SERVED_CHAINS,
  description: 'A chain this gateway serves; any other answers 404 `Unsupported blockchain`',
});
const ChainParam = Type.Object({ chain: Chain });
const IdParams = Type.Object({ chain: Chain, id: Type.String({ description: 'Webhook id (uuid)' }) });
const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);
/** Optional fields may also be sent empty, which means not given (as form posts send them). */
const EMPTY_MEANS_ABSENT = 'Empty means not given.';

const TYPES_BY_CHAIN = SERVED_CHAINS.map((chain) => `\`${chain}\`: ${WEBHOOK_RULES[chain].types.join(', ')}`);
const filterAddress = (role: string) =>
  Type.Optional(
    Type.String({
      maxLength: 128,
      description: `${role}, an address of the chain (EVM: 0x, EIP-55 when mixed case). ${EMPTY_MEANS_ABSENT}`,
    }),
  );

const WebhookBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: MAX_URL_LENGTH,
    description: 'http(s) URL that receives the notifications; private and local addresses are refused',
  }),
  from: filterAddress('Sender'),
  to: filterAddress('Receiver'),
  contractaddress: filterAddress('Token contract'),
  token_id: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9A-Za-z._-]{0,80}$' }), Type.Integer({ minimum: 0 })], {
      description: `Token id (TRC10 asset id, NFT id). ${EMPTY_MEANS_ABSENT}`,
    }),
  ),
  type: Type.Optional(
    Type.String({
      maxLength: 16,
      description: `Transfer type, any case, per chain: ${TYPES_BY_CHAIN.join('; ')}. ${EMPTY_MEANS_ABSENT}`,
    }),
  ),
  confirmations: Type.Optional(
    Type.Union(
      [
        Type.Integer({ minimum: 0, maximum: MAX_CONFIRMATIONS }),
        Type.String({ pattern: `^([0-9]{0,3}|${MAX_CONFIRMATIONS})$` }),
      ],
      { description: `Blocks deep before notifying, 0 to ${MAX_CONFIRMATIONS} (default 0: on inclusion)` },
    ),
  ),
  notify_reverted: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ enum: ['true', 'false', '1', '0', ''] })], {
      description: 'Also notify when a notified transfer leaves the chain in a reorg (default false)',
    }),
  ),
  notify_pending: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ enum: ['true', 'false', '1', '0', ''] })], {
      description:
        'Also notify (event `pending`, `blocknumber` null) when a matching transfer is first seen unconfirmed, on chains with a mempool (Bitcoin); the `transfer` notification follows once it confirms. Default false; elsewhere 422.',
    }),
  ),
  retry: Type.Optional(
    Type.String({
      enum: ['none', 'backoff', ''],
      description:
        '`none` (default, as Chaingateway: a failed notification waits for a manual retry) or `backoff` (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; `Retry-After` honoured)',
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
        ? Type.Intersect([
            WebhookBody,
            Type.Object({
              blockchain: Type.Optional(
                Type.String({ ...Chain, description: `Any case; default \`tron\`. ${Chain.description}` }),
              ),
            }),
          ])
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
      preValidation: resolveBodyChain,
      schema: createSchema(
        "Subscribe (the spec's chain-less form: Tron unless `blockchain` names another chain)",
        true,
      ),
    },
    async (request, reply) => {
      const chain = chainOf(request.body.blockchain ?? 'tron');
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
        params: Type.Object({ chain: Chain, id: Type.String({ description: 'Notification id (uuid)' }) }),
        data: Type.Object({ id: Type.String(), status: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const id = await retryFailedNotification(
        ctx.store,
        ctx.outbox,
        request.userId,
        chainOf(request.params.chain),
        request.network,
        request.params.id,
      );
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

  app.get<{ Params: { chain: string; id: string } }>(
    '/api/v2/:chain/webhooks/:id/secret',
    {
      schema: routeSchema({
        summary: "The webhook's current signing secret (whsec_...)",
        description: 'What verifies webhook-signature and X-Signature now; after a rotation, the new one.',
        tags,
        params: IdParams,
        data: Type.Object({ secret: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await webhooks.secret(
          request.userId,
          chainOf(request.params.chain),
          request.network,
          request.params.id,
        ),
        'Secret fetched',
      ),
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
