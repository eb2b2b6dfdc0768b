import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FamilyRead } from '../../../chains/family.ts';
import { sendOk } from '../../envelope.ts';
import { writeExactNumbers } from '../../exact-numbers.ts';
import { routeSchema } from '../../route-schema.ts';
import { addressParams } from './address-param.ts';
import type { ChainRoutesOptions } from './options.ts';

const errors = [404, 502, 503];
const NOT_FOUND =
  'Unknown transaction: 422 `transaction not found`. A send of yours the node dropped, never to be mined, answers 422 `transaction not found: dropped by the node: ...` with the reason, as the history has it.';

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
  // Only these answers pass a node's JSON on: the walk for its big integers stays off every other route.
  writeExactNumbers(app);
  const target = (request: FastifyRequest) => ({ chain, network: request.network, userId: request.userId });
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

  // A transaction and its receipt, each as the node returns it and decoded: one route shape, four reads.
  const transactionReads = [
    ['/transactions/:txid', 'transaction', 'Succesfully parsed transaction'],
    ['/transactions/:txid/decoded', 'decodedTransaction', 'Succesfully parsed transaction'],
    ['/transactions/:txid/receipt', 'receipt', 'Succesfully parsed transaction receipt'],
    ['/transactions/:txid/receipt/decoded', 'decodedReceipt', 'Succesfully parsed transaction receipt'],
  ] as const;
  for (const [url, read, message] of transactionReads) {
    app.get(url, { schema: readSchema(family.reads[read], TxidParams, NOT_FOUND) }, async (request, reply) =>
      sendOk(reply, await reads[read](target(request), request.params.txid), message),
    );
  }

  app.get(
    '/balances/:address',
    {
      schema: readSchema(family.reads.balance, addressParams(family)),
    },
    async (request, reply) =>
      sendOk(reply, await reads.balance(target(request), request.params.address), 'Balance fetched'),
  );
};
