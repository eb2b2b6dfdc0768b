import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FamilyRead } from '../../../chains/family.ts';
import { sendOk } from '../../envelope.ts';
import { routeSchema } from '../../route-schema.ts';
import { addressParams, refuseMistypedAddress } from './address-param.ts';
import type { ChainRoutesOptions } from './options.ts';

const errors = [404, 502, 503];
const NOT_FOUND = 'Unknown transaction: 422 `transaction not found`.';

/**
 * The reads every chain has: head, blocks, transactions and receipts (as the node returns them or
 * decoded), the native balance. No key involved; the answers' shapes are the family's.
 */
export const chainReadRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const tags = [chain];
  const { reads } = ctx;
  const target = (request: FastifyRequest) => ({ chain, network: request.network });
  /** The operation of one family read: its summary and answer schema, with the route's own parts. */
  const readSchema = <Input extends unknown[], Params extends TSchema | undefined>(
    read: FamilyRead<Input>,
    params: Params,
    description?: string,
  ) =>
    routeSchema({
      summary: read.summary,
      ...(description === undefined ? {} : { description }),
      tags,
      params,
      data: read.schema,
      errors,
    });
  const TxidParams = Type.Object({ txid: family.reads.txid });

  app.get(
    '/blocks/number',
    { schema: readSchema(family.reads.blockNumber, undefined) },
    async (request, reply) =>
      sendOk(reply, await reads.blockNumber(target(request)), 'Latest block number fetched'),
  );

  app.get(
    '/blocks/:block',
    { schema: readSchema(family.reads.block, Type.Object({ block: family.reads.blockId })) },
    async (request, reply) =>
      sendOk(reply, await reads.block(target(request), request.params.block), 'Block fetched'),
  );

  app.get(
    '/transactions/:txid',
    { schema: readSchema(family.reads.transaction, TxidParams, NOT_FOUND) },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.transaction(target(request), request.params.txid),
        'Succesfully parsed transaction',
      ),
  );

  app.get(
    '/transactions/:txid/decoded',
    { schema: readSchema(family.reads.decodedTransaction, TxidParams, NOT_FOUND) },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.decodedTransaction(target(request), request.params.txid),
        'Succesfully parsed transaction',
      ),
  );

  app.get(
    '/transactions/:txid/receipt',
    { schema: readSchema(family.reads.receipt, TxidParams, NOT_FOUND) },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.receipt(target(request), request.params.txid),
        'Succesfully parsed transaction receipt',
      ),
  );

  app.get(
    '/transactions/:txid/receipt/decoded',
    { schema: readSchema(family.reads.decodedReceipt, TxidParams, NOT_FOUND) },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.decodedReceipt(target(request), request.params.txid),
        'Succesfully parsed transaction receipt',
      ),
  );

  app.get(
    '/balances/:address',
    {
      schema: readSchema(family.reads.balance, addressParams(family)),
      preHandler: refuseMistypedAddress(family),
    },
    async (request, reply) =>
      sendOk(reply, await reads.balance(target(request), request.params.address), 'Balance fetched'),
  );
};
