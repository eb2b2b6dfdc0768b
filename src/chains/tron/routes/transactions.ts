import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import type { SendPipeline, SendScope } from '../../../services/send-pipeline.ts';
import type { TronSends } from '../sends.ts';
import {
  Amount,
  FeeLimit,
  SignedTransaction,
  SigningFields,
  Trc10TokenId,
  Trc721TokenId,
  TronAddress,
  TronAnyAddress,
  TxidData,
} from './schemas.ts';

const tags = ['tron'];
const SEND_ERRORS = [401, 404, 422, 502, 503];
const CREATED = 'Succesfully created transaction';
const SIGNING =
  'Signed with `password` (a stored address of yours) or `privatekey` (an unsecure address). A wrong ' +
  "password answers 401 `Wrong password provided`; a private key that is not `from`'s answers 422 " +
  '`Validate signature error ...`; too little TRX answers 422 ' +
  '`balance is not sufficient`. Counts one `transactions` unit when broadcast.';

/** History, sends of TRX / TRC20 / TRC10 / TRC721 and broadcasts of signed ones (builds: builds.ts). */
export const tronTransactionRoutes: FastifyPluginAsyncTypebox<{
  pipeline: SendPipeline;
  sends: TronSends;
}> = async (app, { pipeline, sends }) => {
  /** Who sends, where: the send pipeline's scope. */
  const sender = (request: Pick<FastifyRequest, 'userId' | 'network' | 'sendAttempt'>): SendScope => ({
    userId: request.userId,
    chain: 'tron',
    network: request.network,
    attempt: request.sendAttempt,
  });
  app.post(
    '/transactions',
    {
      schema: routeSchema({
        summary: 'Send TRX',
        description: SIGNING,
        tags,
        body: Type.Object({ from: TronAddress, to: TronAddress, amount: Amount, ...SigningFields }),
        data: TxidData,
        status: 201,
        errors: SEND_ERRORS,
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.trx(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/trc20',
    {
      schema: routeSchema({
        summary: "Send a TRC20 token (amount in the token's units)",
        description: `${SIGNING} Before broadcasting, the energy and bandwidth are estimated and compared with what the sender has; a transfer that would fail on chain or burn more than fee_limit is refused with 422 saying what is missing. The estimate is returned.`,
        tags,
        body: Type.Object({
          from: TronAddress,
          to: TronAddress,
          contractaddress: TronAnyAddress,
          amount: Amount,
          fee_limit: FeeLimit,
          ...SigningFields,
        }),
        data: TxidData,
        status: 201,
        errors: [...SEND_ERRORS, 400],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.trc20(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/trc10',
    {
      schema: routeSchema({
        summary: "Send a TRC10 asset (amount in the asset's units)",
        description: SIGNING,
        tags,
        body: Type.Object({
          from: TronAddress,
          to: TronAddress,
          tokenId: Trc10TokenId,
          amount: Amount,
          ...SigningFields,
        }),
        data: TxidData,
        status: 201,
        errors: [...SEND_ERRORS, 400],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.trc10(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/trc721',
    {
      schema: routeSchema({
        summary: 'Send a TRC721 token',
        description: `${SIGNING} Pre-flighted like TRC20 transfers. \`amount\` is accepted and ignored (one token).`,
        tags,
        body: Type.Object({
          from: TronAddress,
          to: TronAddress,
          contractaddress: TronAnyAddress,
          tokenid: Trc721TokenId,
          amount: Type.Optional(Amount),
          fee_limit: FeeLimit,
          ...SigningFields,
        }),
        data: TxidData,
        status: 201,
        errors: [...SEND_ERRORS, 400],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.trc721(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/broadcast',
    {
      schema: routeSchema({
        summary:
          "Broadcast a transaction you signed (tronweb's signed JSON, at the top level or under `transaction`)",
        description:
          'Counts one `transactions` unit when the node accepts it. The node re-encodes `raw_data`; a signature that does not match answers 422 `Validate signature error ...`. ' +
          "The history records what the contract moves: TRX (TransferContract), TRC10 (TransferAssetContract), TRC20 (`transfer(address,uint256)`) or TRC721 (`transferFrom` / `safeTransferFrom`), with from, to, the amount in the asset's units, `contractaddress` and `tokenid`. A TransferContract or TransferAssetContract whose amount or asset id the node could not read answers 422.",
        tags,
        body: Type.Union([SignedTransaction, Type.Object({ transaction: SignedTransaction })]),
        data: Type.Object({ txid: Type.String() }),
        status: 201,
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) => {
      const body = request.body;
      const tx = 'transaction' in body ? body.transaction : body;
      return sendOk(
        reply,
        await pipeline.broadcast(sender(request), sends.signed(request.network, tx)),
        CREATED,
        201,
      );
    },
  );
};
