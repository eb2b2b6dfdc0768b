import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { restateAmount } from '../../../chains/amount.ts';
import { PageQuery, PaginatedEnvelope, sendPage } from '../../pagination.ts';
import { routeSchema } from '../../route-schema.ts';
import { historyRecord } from '../history-record.ts';
import type { ChainRoutesOptions } from './options.ts';

/** A page of the history, in the order asked: oldest first unless `order=desc` (Chaingateway's order). */
const HistoryQuery = Type.Object({
  ...PageQuery.properties,
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      default: 'asc',
      description:
        '`asc` (default): oldest first, as Chaingateway lists; `desc`: newest first, so page 1 has the latest',
    }),
  ),
});

/** The history of one chain: what the caller sent through the gateway, failures included. */
export const chainHistoryRoutes: FastifyPluginAsyncTypebox<ChainRoutesOptions> = async (
  app,
  { ctx, chain, family },
) => {
  const HistoryRecord = historyRecord(family.historyTypes(chain));
  // Rows stored before the amount rule were padded to 12 decimals: they read by the rule all the same.
  const readAmount = (type: string, amount: string | null) => {
    const decimals = family.historyDecimals(chain, type);
    return amount === null || decimals === null ? amount : restateAmount(amount, decimals);
  };

  app.get(
    '/transactions',
    {
      schema: routeSchema({
        summary: 'Transactions made through this gateway, failures included, 50 per page',
        tags: [chain],
        querystring: HistoryQuery,
        data: Type.Array(HistoryRecord),
        successBody: PaginatedEnvelope(HistoryRecord),
      }),
    },
    async (request, reply) => {
      const page = await ctx.transactions.list(
        request.userId,
        chain,
        request.network,
        request.query.page ?? 1,
        request.query.order ?? 'asc',
      );
      const items = page.items.map((item) => ({ ...item, amount: readAmount(item.type, item.amount) }));
      return sendPage(
        `/api/v2/${chain}/transactions`,
        reply,
        { ...page, items },
        'Succesfully parsed transactions',
        request.query.order === 'desc' ? 'order=desc' : '',
      );
    },
  );
};
