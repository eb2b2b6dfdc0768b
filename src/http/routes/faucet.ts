import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../../chains/registry.ts';
import { ApiError } from '../../errors.ts';
import type { FaucetDirectory, FaucetRequest } from '../../services/faucets.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Amount = Type.Union([Type.String(), Type.Number()], {
  description: 'Amount in the asset\'s units (e.g. "100" TRX), not base units',
});

const FaucetBody = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 128 }),
  amount: Amount,
  contractaddress: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'A demo token to send' }),
  ),
});

const FaucetResult = Type.Object({
  address: Type.String(),
  amount: Type.String(),
  symbol: Type.String(),
  contractaddress: Type.Union([Type.String(), Type.Null()]),
  txid: Type.Union([Type.String(), Type.Null()]),
});

/** Sandbox only: funds an address on the devnet of the request's network. Not registered elsewhere. */
export async function faucetRoutes(
  app: FastifyInstance,
  { faucets }: { ctx: AppContext; faucets: FaucetDirectory },
) {
  app.post<{ Params: { chain: string }; Body: FaucetRequest }>(
    '/api/v2/:chain/faucet',
    {
      schema: routeSchema({
        summary: 'Sandbox faucet: send native coins or a demo token to an address',
        description: 'Exists only in the sandbox (404 elsewhere). Uses the devnet chosen by X-Network.',
        tags: ['sandbox'],
        params: Type.Object({ chain: Type.String() }),
        body: FaucetBody,
        data: FaucetResult,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const faucet = faucets.get(request.params.chain, request.network);
      if (!faucet) throw new ApiError(404, UNSUPPORTED_BLOCKCHAIN);
      return sendOk(reply, await faucet.fund(request.body), 'Address funded');
    },
  );
}
