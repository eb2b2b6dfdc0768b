import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formatAmount } from '../../../chains/amount.ts';
import { amountField } from '../../../chains/amount-field.ts';
import { addressSchema } from '../../../chains/family.ts';
import { WalletPassword } from '../../../custody/wallet-fields.ts';
import { ApiError } from '../../../errors.ts';
import { noSponsor } from '../../../sponsorship/reservations.ts';
import { MAX_SWEEP_ADDRESSES, noFeeSponsor } from '../../../sponsorship/sweeps.ts';
import { sendOk } from '../../envelope.ts';
import { routeSchema } from '../../route-schema.ts';
import type { ChainRoutesOptions } from './options.ts';
import { CALLBACK_RULE, CallbackUrl, jobCallback } from './paymaster.ts';

const Nullable = Type.Union([Type.String(), Type.Null()]);

const SweepAnswer = Type.Object({
  id: Type.String(),
  to: Type.String(),
  contractaddress: Nullable,
  status: Type.String({
    description:
      '`pending` (the addresses’ jobs are being made), `running`, or `completed` (every job ended)',
  }),
  addresses: Type.Array(
    Type.Object({
      address: Type.String(),
      amount: Type.String({ description: 'What is moved, in the asset’s units' }),
      status: Type.String({ description: '`pending`, `processing`, `completed` or `failed - <reason>`' }),
      txid: Nullable,
      job_id: Type.String(),
    }),
  ),
  skipped: Type.Array(Type.Object({ address: Type.String(), reason: Type.String() })),
  callback_url: Nullable,
  created_at: Type.String(),
  updated_at: Type.String(),
});

/**
 * Sweeps under `/api/v2/{chain}`: a token (or the coin) gathered from many of the caller's custodial
 * addresses into one, each address's transfer a sponsored job.
 */
export const chainSweepRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const tags = [`${chain} paymaster`];
  const { sponsorship } = ctx;
  const address = addressSchema(family.address);
  const sponsor = ctx.familyParts.get(family.name)?.sponsor;

  app.post(
    '/sweeps',
    {
      schema: routeSchema({
        summary: 'Gather a token or the coin from many of your addresses into one',
        description: `From the addresses in \`from\` (at most ${MAX_SWEEP_ADDRESSES}), or every custodial address of yours on this chain and network when it is left out, to \`to\`; a token with \`contractaddress\`, else the coin. Each address moves all it holds (the coin: less its own fee), its fee paid by the sponsor where it has none; \`password\` opens the addresses' keys. An address is skipped, with the reason, when it holds nothing or less than \`min_amount\`, when its coin would not pay its own fee, when its key does not open, or when the transfer would fail. Answers 202 at once; GET /sweeps/{id} shows each address. ${CALLBACK_RULE}`,
        tags,
        body: Type.Object({
          to: address,
          contractaddress: Type.Optional(
            addressSchema(family.address, { description: 'The token contract (mint)' }),
          ),
          from: Type.Optional(Type.Array(address, { minItems: 1, maxItems: MAX_SWEEP_ADDRESSES })),
          min_amount: Type.Optional(
            Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
              description: 'Skip addresses holding less, in the asset’s units',
            }),
          ),
          password: Type.Optional(WalletPassword),
          callback_url: CallbackUrl,
        }),
        data: Type.Intersect([SweepAnswer, Type.Object({ callback_secret: Nullable })]),
        status: 202,
        message: 'Sweep started',
        errors: [503],
        because: { 503: 'No sponsor is set for this chain and network' },
      }),
    },
    async (request, reply) => {
      if (sponsor === undefined) throw noFeeSponsor(chain);
      const { body } = request;
      const caller = { userId: request.userId, chain, network: request.network };
      // What needs no node first: a refused callback_url, or no sponsor, is said even when the node is down.
      const callback = await jobCallback(body.callback_url, ctx.webhookAllowlist);
      if ((await sponsorship.sponsors.get(chain, request.network)) === null)
        throw noSponsor(chain, request.network);
      const decimals = await sponsor.decimals(chain, request.network, body.contractaddress ?? null);
      const sweep = await sponsorship.sweeps.create(caller, {
        to: body.to,
        contract: body.contractaddress ?? null,
        from: body.from ?? null,
        minUnits: body.min_amount === undefined ? null : minUnits(body.min_amount, decimals),
        password: body.password ?? null,
        callbackUrl: callback?.url ?? null,
        callbackSecret: callback?.secret ?? null,
      });
      const answer = await sponsorship.sweepAnswer({ sweep, jobs: [] });
      return sendOk(reply, { ...answer, callback_secret: callback?.secret ?? null }, 'Sweep started', 202);
    },
  );

  app.get(
    '/sweeps/:id',
    {
      schema: routeSchema({
        summary: 'One sweep: each address’s amount, txid and state, and the addresses skipped',
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        data: SweepAnswer,
        message: 'Sweep fetched',
        errors: [404],
      }),
    },
    async (request, reply) => {
      const caller = { userId: request.userId, chain, network: request.network };
      const found = await sponsorship.sweeps.get(caller, request.params.id);
      if (found === null) throw new ApiError(404, 'Sweep not found');
      return sendOk(reply, await sponsorship.sweepAnswer(found), 'Sweep fetched');
    },
  );
};

function minUnits(raw: string | number, decimals: number): bigint {
  try {
    return amountField(raw, decimals);
  } catch {
    throw new ApiError(422, `The min_amount field must be an amount of at most ${decimals} decimals`, [
      { field: 'min_amount', message: `at most ${decimals} decimals, e.g. ${formatAmount(1n, decimals)}` },
    ]);
  }
}
