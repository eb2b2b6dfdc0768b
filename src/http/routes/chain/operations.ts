import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  type BodySize,
  type BroadcastOperation,
  type BuildOperation,
  type ChainOperation,
  type FamilyOperation,
  NO_INPUT,
  type OperationDoc,
  type OperationRegistrar,
  type SendOperation,
} from '../../../chains/operations.ts';
import type { Caller, SendPort } from '../../../chains/ports.ts';
import type { ChainName } from '../../../chains/types.ts';
import { BODY_LIMITS } from '../../body-limits.ts';
import { sendOk } from '../../envelope.ts';
import { routeSchema } from '../../route-schema.ts';
import { typedInput } from '../../typed-input.ts';

/** Chaingateway's word for a transaction sent (its spelling). */
export const SENT_MESSAGE = 'Succesfully created transaction';
const SEND_ERRORS = [401, 404, 422, 502, 503];
const BUILD_ERRORS = [404, 422, 502, 503];

/** A part's schema as the route registers it: none for a part the operation does not read. */
const taken = (part: TObject): TObject | undefined => (part === NO_INPUT ? undefined : part);

/** What an operation is given of a request's part: nothing of a part it does not read (not validated). */
const given = (part: TObject, value: unknown): unknown => (part === NO_INPUT ? {} : (value ?? {}));

const bodyLimit = (size: BodySize | undefined) => ({ bodyLimit: BODY_LIMITS[size ?? 'default'] });

/**
 * The operations a family declares for one chain (`FamilyParts.operations`), registered under the chain's
 * prefix: every send, build and broadcast answers in one envelope with one status and message, through
 * the one send pipeline; a family's own operations with the answer they declare.
 * The operations are generic in their schemas, which the type provider cannot see through: each input
 * reaches the operation through `typedInput` of the schema it was validated with.
 */
export const chainOperationRoutes: FastifyPluginAsync<{
  chain: ChainName;
  sends: SendPort;
  operations: readonly ChainOperation[];
}> = async (app, { chain, sends, operations }) => {
  const caller = (request: FastifyRequest): Caller => ({
    userId: request.userId,
    chain,
    network: request.network,
    attempt: request.sendAttempt,
  });
  const tagsOf = (tags: string[] | undefined) => tags ?? [chain];
  /** The options of a send, build or broadcast route: its body limit and its documented answer. */
  const postOptions = (
    operation: OperationDoc & { body: TSchema; bodySize?: BodySize | undefined },
    answer: { data: TSchema; status?: number; message?: string; errors: number[] },
  ) => ({
    ...bodyLimit(operation.bodySize),
    schema: routeSchema({
      summary: operation.summary,
      description: operation.description,
      tags: tagsOf(operation.tags),
      body: operation.body,
      ...answer,
    }),
  });

  const registrar: OperationRegistrar = {
    send<Body extends TObject>(operation: SendOperation<Body>) {
      const status = operation.answer?.status ?? 201;
      const body = typedInput(operation.body);
      const message = operation.answer?.message ?? SENT_MESSAGE;
      app.post(
        operation.path,
        postOptions(operation, { data: operation.data, status, message, errors: SEND_ERRORS }),
        async (request, reply) => {
          const from = caller(request);
          const send = operation.prepare(from, body(request.body));
          const data =
            'walletPassword' in send
              ? await sends.sendFromWallet(from, send.walletPassword, send.prepared)
              : await sends.send(from, send.proof, send.prepared);
          return sendOk(reply, data, message, status);
        },
      );
    },

    build<Body extends TObject, Data extends TSchema>(operation: BuildOperation<Body, Data>) {
      const body = typedInput(operation.body);
      app.post(
        operation.path,
        postOptions(operation, { data: operation.data, errors: BUILD_ERRORS }),
        async (request, reply) =>
          sendOk(reply, await operation.build(caller(request), body(request.body)), 'Transaction built'),
      );
    },

    broadcast<Body extends TSchema>(operation: BroadcastOperation<Body>) {
      const body = typedInput(operation.body);
      app.post(
        operation.path,
        postOptions(operation, {
          data: Type.Object({ txid: operation.txid }),
          status: 201,
          message: SENT_MESSAGE,
          errors: SEND_ERRORS,
        }),
        async (request, reply) => {
          const from = caller(request);
          const txid = await sends.broadcast(from, await operation.signed(from, body(request.body)));
          return sendOk(reply, txid, SENT_MESSAGE, 201);
        },
      );
    },

    own<Params extends TObject, Query extends TObject, Body extends TObject, Data extends TSchema>(
      operation: FamilyOperation<Params, Query, Body, Data>,
    ) {
      const status = operation.status ?? 200;
      const { params, querystring, body } = operation.input;
      const input = { params: typedInput(params), query: typedInput(querystring), body: typedInput(body) };
      app.route({
        method: operation.method,
        url: operation.path,
        ...bodyLimit(operation.bodySize),
        schema: routeSchema({
          summary: operation.summary,
          description: operation.description,
          tags: tagsOf(operation.tags),
          params: taken(params),
          querystring: taken(querystring),
          body: taken(body),
          data: operation.data,
          status,
          message: operation.message,
          errors: operation.errors ?? [],
        }),
        handler: async (request, reply) => {
          const data = await operation.run(caller(request), {
            params: input.params(given(params, request.params)),
            query: input.query(given(querystring, request.query)),
            body: input.body(given(body, request.body)),
          });
          return sendOk(reply, data, operation.message, status);
        },
      });
    },
  };

  for (const operation of operations) operation.registerWith(registrar);
};
