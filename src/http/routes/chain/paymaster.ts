import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { addressSchema } from '../../../chains/family.ts';
import type { Caller } from '../../../chains/ports.ts';
import { PrivateKey, WalletPassword } from '../../../custody/wallet-fields.ts';
import { invalidField } from '../../../errors.ts';
import { SponsorJobAnswer } from '../../../sponsorship/job-answer.ts';
import { JOBS_PAGE } from '../../../sponsorship/sponsor-jobs.ts';
import { generateWebhookSecret } from '../../../webhooks/signing.ts';
import { checkWebhookUrl } from '../../../webhooks/url-guard.ts';
import { MAX_URL_LENGTH } from '../../../webhooks/webhook-input.ts';
import { sendOk } from '../../envelope.ts';
import { PageQuery, PaginatedEnvelope, sendPage } from '../../pagination.ts';
import { routeSchema } from '../../route-schema.ts';
import type { ChainRoutesOptions } from './options.ts';

export const CALLBACK_RULE =
  'Optional `callback_url` (http or https, public addresses only, as webhook URLs) gets a signed POST (Standard Webhooks headers and `X-Signature`, under the `callback_secret` this answer shows once) when the job ends, retried on the webhooks’ backoff schedule until it answers 2xx.';

/** The `callback_url` field and the secret its POST is signed with; a URL the guard refuses is a 422. */
export async function jobCallback(url: string | undefined, allowlist: readonly string[]) {
  if (url === undefined || url === '') return null;
  const refusal = await checkWebhookUrl(url, allowlist);
  if (refusal !== null)
    throw invalidField('callback_url', `The callback_url field is refused: it ${refusal}.`);
  return { url, secret: generateWebhookSecret() };
}

export const CallbackUrl = Type.Optional(
  Type.String({ maxLength: MAX_URL_LENGTH, description: 'Where the job’s end is POSTed, signed' }),
);

/** What a create answers: the job, and the callback's secret once. */
export const CreatedJob = Type.Intersect([
  SponsorJobAnswer,
  Type.Object({
    callback_secret: Type.Union([Type.String(), Type.Null()], {
      description: 'The `whsec_` secret the callback is signed with; shown only here',
    }),
  }),
]);

/**
 * Chaingateway's paymaster under `/api/v2/{chain}`: a transfer from an address that holds none of the
 * chain's coin, its fee paid by the operator's sponsor (how, the family says), run in the background.
 */
export const chainPaymasterRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const tags = [`${chain} paymaster`];
  const address = addressSchema(family.address);
  const sponsor = ctx.familyParts.get(family.name)?.sponsor;
  const types = sponsor?.types(chain) ?? [];
  const TransferFields = {
    type: Type.String({
      maxLength: 20,
      description: types.length === 0 ? 'What moves' : `What moves: ${types.join(', ')}`,
    }),
    from: address,
    to: address,
    contractaddress: Type.Optional(
      addressSchema(family.address, { description: 'The token contract (mint)' }),
    ),
    tokenid: Type.Optional(
      Type.Union([Type.String({ pattern: '^[0-9]{1,78}$' }), Type.Integer({ minimum: 0 })], {
        description: 'The TRC10 token id, or the NFT id',
      }),
    ),
    amount: Type.Optional(
      Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
        description: 'In the asset’s units, plain decimal digits',
      }),
    ),
  };
  const because = sponsor === undefined ? { 422: `${chain} pays its fee from the coins it moves` } : {};
  const caller = (request: FastifyRequest): Caller => ({
    userId: request.userId,
    chain,
    network: request.network,
    attempt: request.sendAttempt,
  });
  const transferOf = (body: {
    type: string;
    from: string;
    to: string;
    contractaddress?: string | undefined;
    tokenid?: string | number | undefined;
    amount?: string | number | undefined;
  }) => ({
    type: body.type,
    from: body.from,
    to: body.to,
    contractaddress: body.contractaddress,
    tokenid: body.tokenid === undefined ? undefined : String(body.tokenid),
    amount: body.amount === undefined ? undefined : String(body.amount),
  });

  app.post(
    '/paymaster',
    {
      schema: routeSchema({
        summary: 'Send a transfer whose fee the sponsor pays (paymaster)',
        description: `The caller proves \`from\` is theirs with \`password\` (a custodial address) or \`privatekey\`. The sponsor's cost is estimated exactly and reserved from the operator's budget and the plan's allowance (422 when either is spent, or when the transfer would fail anyway); the job then runs in the background: read it back with GET /paymaster/{id}. ${CALLBACK_RULE}`,
        tags,
        body: Type.Object({
          ...TransferFields,
          privatekey: Type.Optional(family.keyForms?.privateKey ?? PrivateKey),
          password: Type.Optional(WalletPassword),
          callback_url: CallbackUrl,
        }),
        data: CreatedJob,
        status: 201,
        message: 'Paymaster request created',
        errors: [404, 503],
        because: {
          404: 'With a password: `from` is not a custodial address of yours',
          503: 'No sponsor is set for this chain and network',
          ...because,
        },
      }),
    },
    async (request, reply) => {
      const { body } = request;
      const callback = await jobCallback(body.callback_url, ctx.webhookAllowlist);
      const proof = { password: body.password, privatekey: body.privatekey };
      const job = await ctx.sponsorship.paymaster.create(caller(request), transferOf(body), proof, callback);
      const answer = {
        ...(await ctx.sponsorship.paymaster.answer(job)),
        callback_secret: callback?.secret ?? null,
      };
      return sendOk(reply, answer, 'Paymaster request created', 201);
    },
  );

  app.post(
    '/paymaster/estimate',
    {
      schema: routeSchema({
        summary: 'Estimate what the sponsor would pay for a transfer',
        description:
          'The same transfer fields as POST /paymaster; nothing is reserved or sent. Tron answers `energy_consumption`, `bandwidth_consumption` and `paymaster_fee` (TRX); the EVM chains the gas and the top-up; Solana the lamports; TON what the sponsor attaches, its fee and who pays (`paid_by`).',
        tags,
        body: Type.Object(TransferFields),
        data: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
        message: 'Successfully estimated the fees',
        errors: [503],
        because: { 503: 'No sponsor is set for this chain and network', ...because },
      }),
    },
    async (request, reply) => {
      const { quote } = await ctx.sponsorship.paymaster.estimate(caller(request), transferOf(request.body));
      return sendOk(reply, quote.answer, 'Successfully estimated the fees');
    },
  );

  app.get(
    '/paymaster',
    {
      schema: routeSchema({
        summary: 'Your paymaster requests, newest first, 50 per page',
        tags,
        querystring: PageQuery,
        data: Type.Array(SponsorJobAnswer),
        successBody: PaginatedEnvelope(SponsorJobAnswer),
      }),
    },
    async (request, reply) => {
      const page = request.query.page ?? 1;
      const { items, total } = await ctx.sponsorship.paymaster.list(caller(request), page);
      return sendPage(
        `/api/v2/${chain}/paymaster`,
        reply,
        { items, total, page, perPage: JOBS_PAGE },
        'Paymaster requests fetched',
      );
    },
  );

  app.get(
    '/paymaster/:id',
    {
      schema: routeSchema({
        summary: 'One paymaster request: its status and, once completed, its txid',
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        data: SponsorJobAnswer,
        message: 'Paymaster request fetched',
        errors: [404],
      }),
    },
    async (request, reply) => {
      const job = await ctx.sponsorship.paymaster.get(caller(request), request.params.id);
      return sendOk(reply, job, 'Paymaster request fetched');
    },
  );
};
