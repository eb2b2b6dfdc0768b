import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PageQuery, PaginatedEnvelope, sendPage } from '../../pagination.ts';
import { routeSchema } from '../../route-schema.ts';
import { historyRecord } from '../history-record.ts';
import type { ChainRoutesOptions } from './options.ts';

/** The history of one chain: what the caller sent through the gateway, newest first, failures included. */
export const chainHistoryRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const HistoryRecord = historyRecord(family.historyTypes(chain));

  app.get(
    '/transactions',
    {
      schema: routeSchema({
        summary: 'Transactions made through this gateway, failures included, 50 per page',
        tags: [chain],
        querystring: PageQuery,
        data: Type.Array(HistoryRecord),
        successBody: PaginatedEnvelope(HistoryRecord),
      }),
    },
    async (request, reply) =>
      sendPage(
        request,
        reply,
        await ctx.transactions.list(request.userId, chain, request.network, request.query.page ?? 1),
        'Succesfully parsed transactions',
      ),
  );
};
