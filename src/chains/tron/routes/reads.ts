import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import type { TronTokenReads } from '../token-reads.ts';
import { TronAnyAddress } from './schemas.ts';

const tags = ['tron'];

/** Token balances, TRC20 info and chain parameters: Tron's own reads (the shared ones: http/routes/chain/reads.ts). */
export const tronReadRoutes: FastifyPluginAsyncTypebox<{ reads: TronTokenReads }> = async (
  app,
  { reads },
) => {
  app.get(
    '/balances/:address/trc20/:contract',
    {
      schema: routeSchema({
        summary: "TRC20 balance in the token's base units, with its decimals",
        tags,
        params: Type.Object({ address: TronAnyAddress, contract: TronAnyAddress }),
        data: Type.Object({
          tronaddress: Type.String(),
          decimals: Type.Integer(),
          balance: Type.String(),
          contractaddress: Type.String(),
        }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.trc20Balance(request.network, request.params.address, request.params.contract),
        'Balance fetched',
      ),
  );

  app.get(
    '/balances/:address/trc10/:tokenId',
    {
      schema: routeSchema({
        summary: "TRC10 balance in the asset's base units, with its precision as decimals",
        tags,
        params: Type.Object({ address: TronAnyAddress, tokenId: Type.String({ pattern: '^[0-9]{1,19}$' }) }),
        data: Type.Object({
          tronaddress: Type.String(),
          decimals: Type.Integer(),
          balance: Type.String(),
          tokenid: Type.String(),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.trc10Balance(request.network, request.params.address, request.params.tokenId),
        'Balance fetched',
      ),
  );

  app.get(
    '/trc20/:contract',
    {
      schema: routeSchema({
        summary: 'TRC20 contract information',
        description: 'A contract that does not answer as a TRC20: 400 `Error fetching TRC20 contract`.',
        tags,
        params: Type.Object({ contract: TronAnyAddress }),
        data: Type.Object({
          address: Type.String(),
          symbol: Type.String(),
          name: Type.String(),
          totalSupply: Type.String(),
          decimals: Type.String(),
        }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.trc20Info(request.network, request.params.contract),
        'TRC20 contract fetched',
      ),
  );

  app.get(
    '/chainparameters',
    {
      schema: routeSchema({
        summary: 'Chain parameters (fees, limits) as the node returns them',
        tags,
        data: Type.Object({
          chainParameter: Type.Array(
            Type.Object({ key: Type.String(), value: Type.Optional(Type.Number()) }),
          ),
        }),
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await reads.chainParameters(request.network), 'Chain parameters fetched'),
  );
};
