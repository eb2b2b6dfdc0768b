import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { tronAddressRoutes } from './addresses.ts';
import { tronBuildRoutes } from './builds.ts';
import { tronReadRoutes } from './reads.ts';
import { tronStakingRoutes } from './staking.ts';
import { tronTransactionRoutes } from './transactions.ts';

/** Every Tron route of the spec, on the context's TronService. */
export async function tronRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const { tron } = ctx;
  await app.register(tronReadRoutes, { tron });
  await app.register(tronTransactionRoutes, { ctx, tron });
  await app.register(tronBuildRoutes, { tron });
  await app.register(tronAddressRoutes, { tron });
  await app.register(tronStakingRoutes, { tron });
}
