import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { ADDRESS_MARK, ADDRESS_OF_THE_CHAIN } from '../../chains/family.ts';
import type { FaucetDirectory } from '../../chains/faucets.ts';
import { UNSUPPORTED_BLOCKCHAIN } from '../../chains/registry.ts';
import { ApiError } from '../../errors.ts';
import { sendOk } from '../envelope.ts';
import { routeSchema } from '../route-schema.ts';

const Amount = Type.Union([Type.String(), Type.Number()], {
  description: 'Amount in the asset\'s units (e.g. "100" TRX), not base units',
});

/** Addresses of the chain in the path, checked as its address routes check theirs. */
const FaucetBody = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 128, [ADDRESS_MARK]: ADDRESS_OF_THE_CHAIN }),
  amount: Amount,
  contractaddress: Type.Optional(
    // Not marked as an address: on Tron a TRC10 asset id names a demo token too. Whatever is not one of
    // the devnet's demo tokens is refused (422) before anything is sent.
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'A demo token to send: its contract address (mint on Solana), or a TRC10 asset id on Tron',
    }),
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
export const faucetRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext; faucets: FaucetDirectory }> = async (
  app,
  { faucets },
) => {
  app.post(
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
};
