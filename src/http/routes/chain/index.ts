import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../app-context.ts';
import type { FamilyModule } from '../../../chains/family.ts';
import { CHAIN_NAMES } from '../../../chains/types.ts';
import { chainAddressRoutes } from './addresses.ts';
import { chainHistoryRoutes } from './history.ts';
import { chainReadRoutes } from './reads.ts';

/**
 * The routes every chain has, written once and registered for each served chain under its own prefix,
 * so that the OpenAPI document keeps one operation per chain with that family's patterns and answers.
 */
export const chainRoutes: FastifyPluginAsyncTypebox<{
  ctx: AppContext;
  families: readonly FamilyModule[];
}> = async (app, { ctx, families }) => {
  for (const family of families) {
    for (const chain of CHAIN_NAMES.filter((name) => family.chains[name] !== undefined)) {
      const prefix = `/api/v2/${chain}`;
      await app.register(chainReadRoutes, { prefix, ctx, chain, family });
      await app.register(chainHistoryRoutes, { prefix, ctx, chain, family });
      await app.register(chainAddressRoutes, { prefix, ctx, chain, family });
    }
  }
};
