import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import type { TronSends } from '../sends.ts';
import {
  Amount,
  FeeLimit,
  Trc10TokenId,
  Trc721TokenId,
  TronAddress,
  TronAnyAddress,
  UnsignedTransaction,
} from './schemas.ts';

const tags = ['tron'];
const BUILT = 'Transaction built';
const BUILD =
  'The node builds the transaction and the gateway checks it against the request with tronweb ' +
  '(txCheckWithArgs, txCheck), so what comes back is exactly what was asked. Sign the returned ' +
  'object as it is (`await tronWeb.trx.sign(data, privateKey)`) and send it to ' +
  '`POST /api/v2/tron/transactions/broadcast`. Nothing is signed, broadcast or stored, and no ' +
  "`transactions` unit is used. The body is the matching send's without `password` / `privatekey`; " +
  'a refusal by the node (e.g. `balance is not sufficient`) answers 422.';

/** Unsigned builds of every Tron send: TRX, TRC10, TRC20 and TRC721, for the caller to sign. */
export const tronBuildRoutes: FastifyPluginAsyncTypebox<{ sends: TronSends }> = async (app, { sends }) => {
  app.post(
    '/transactions/build',
    {
      schema: routeSchema({
        summary: 'Build an unsigned TRX transfer to sign yourself; nothing is broadcast',
        description: BUILD,
        tags,
        body: Type.Object({ from: TronAddress, to: TronAddress, amount: Amount }),
        data: UnsignedTransaction,
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) => sendOk(reply, await sends.buildTrx(request.network, request.body), BUILT),
  );

  app.post(
    '/transactions/trc10/build',
    {
      schema: routeSchema({
        summary: "Build an unsigned TRC10 transfer (amount in the asset's units); nothing is broadcast",
        description: `${BUILD} An unknown asset answers 400 \`TRC10 token … does not exist\`.`,
        tags,
        body: Type.Object({ from: TronAddress, to: TronAddress, tokenId: Trc10TokenId, amount: Amount }),
        data: UnsignedTransaction,
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) => sendOk(reply, await sends.buildTrc10(request.network, request.body), BUILT),
  );

  app.post(
    '/transactions/trc20/build',
    {
      schema: routeSchema({
        summary: "Build an unsigned TRC20 transfer (amount in the token's units); nothing is broadcast",
        description: `${BUILD} A contract that does not answer decimals() answers 400.`,
        tags,
        body: Type.Object({
          from: TronAddress,
          to: TronAddress,
          contractaddress: TronAnyAddress,
          amount: Amount,
          fee_limit: FeeLimit,
        }),
        data: UnsignedTransaction,
        errors: [400, 404, 502, 503],
      }),
    },
    async (request, reply) => sendOk(reply, await sends.buildTrc20(request.network, request.body), BUILT),
  );

  app.post(
    '/transactions/trc721/build',
    {
      schema: routeSchema({
        summary: 'Build an unsigned TRC721 transferFrom(from, to, tokenid); nothing is broadcast',
        description: `${BUILD} \`amount\` is accepted and ignored (one token).`,
        tags,
        body: Type.Object({
          from: TronAddress,
          to: TronAddress,
          contractaddress: TronAnyAddress,
          tokenid: Trc721TokenId,
          amount: Type.Optional(Amount),
          fee_limit: FeeLimit,
        }),
        data: UnsignedTransaction,
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) => sendOk(reply, await sends.buildTrc721(request.network, request.body), BUILT),
  );
};
