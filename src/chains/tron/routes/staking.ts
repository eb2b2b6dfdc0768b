import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sendOk } from '../../../http/envelope.ts';
import { routeSchema } from '../../../http/route-schema.ts';
import type { SendPipeline } from '../../../services/send-pipeline.ts';
import type { TronSends } from '../sends.ts';
import { Amount, Resource, SigningFields, TronAddress } from './schemas.ts';

const ACTIONS = [
  {
    action: 'freeze',
    summary: 'Stake TRX for energy or bandwidth (Stake 2.0)',
    message: 'Balance frozen',
    receiver: false,
  },
  { action: 'unfreeze', summary: 'Unstake TRX (Stake 2.0)', message: 'Balance unfrozen', receiver: false },
  {
    action: 'delegate',
    summary: 'Delegate staked resources to another address',
    message: 'Delegated',
    receiver: true,
  },
  { action: 'undelegate', summary: 'Take back delegated resources', message: 'Undelegated', receiver: true },
] as const;

/** Stake 2.0: freeze, unfreeze, delegate, undelegate; amounts in TRX, signed like sends. */
export const tronStakingRoutes: FastifyPluginAsyncTypebox<{
  pipeline: SendPipeline;
  sends: TronSends;
}> = async (app, { pipeline, sends }) => {
  for (const { action, summary, message, receiver } of ACTIONS) {
    app.post(
      `/${action}`,
      {
        schema: routeSchema({
          summary,
          description:
            "Signed with `password` or `privatekey` like sends; the node's refusal (e.g. `delegated Resource does not exist`) answers 422. Counts one `transactions` unit.",
          tags: ['tron staking'],
          body: Type.Object({
            address: TronAddress,
            amount: Amount,
            resource: Resource,
            ...(receiver ? { receiver: TronAddress } : {}),
            ...SigningFields,
          }),
          data: Type.Object({ result: Type.Boolean(), txid: Type.String() }),
          errors: [404, 502, 503],
        }),
      },
      async (request, reply) =>
        sendOk(
          reply,
          await pipeline.send(
            { userId: request.userId, chain: 'tron', network: request.network, attempt: request.sendAttempt },
            request.body,
            sends.stake(request.network, action, request.body),
          ),
          message,
        ),
    );
  }
};
