import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FamilyRoutesOptions } from '../../family.ts';
import { tronAddressRoutes } from './addresses.ts';
import { tronBuildRoutes } from './builds.ts';
import { tronReadRoutes } from './reads.ts';
import { tronStakingRoutes } from './staking.ts';
import { tronTransactionRoutes } from './transactions.ts';

/** Where every Tron route lives. */
const prefix = '/api/v2/tron';

/** Every Tron route of the spec, on the context's TronService. */
export const tronRoutes: FastifyPluginAsyncTypebox<FamilyRoutesOptions> = async (app, { ctx }) => {
  const { tron } = ctx;
  await app.register(tronReadRoutes, { prefix, tron });
  await app.register(tronTransactionRoutes, { prefix, ctx });
  await app.register(tronBuildRoutes, { prefix, sends: ctx.tronSends });
  await app.register(tronAddressRoutes, { prefix, custody: ctx.custody });
  await app.register(tronStakingRoutes, { prefix, pipeline: ctx.sends, sends: ctx.tronSends });
};
