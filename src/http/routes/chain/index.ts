import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../app-context.ts';
import type { FamilyModule } from '../../../chains/family.ts';
import { chainAddressRoutes } from './addresses.ts';
import { chainHistoryRoutes } from './history.ts';
import { chainOperationRoutes } from './operations.ts';
import { chainPaymasterRoutes } from './paymaster.ts';
import { chainReadRoutes } from './reads.ts';
import { chainSweepRoutes } from './sweeps.ts';

/**
 * The routes every chain has, written once and registered for each served chain under its own prefix,
 * so that the OpenAPI document keeps one operation per chain with that family's patterns and answers.
 */
export const chainRoutes: FastifyPluginAsyncTypebox<{
  ctx: AppContext;
  families: readonly FamilyModule[];
}> = async (app, { ctx, families }) => {
  for (const family of families) {
    for (const chain of Object.keys(family.chains)) {
      const prefix = `/api/v2/${chain}`;
      await app.register(chainReadRoutes, { prefix, ctx, chain, family });
      await app.register(chainHistoryRoutes, { prefix, ctx, chain, family });
      await app.register(chainAddressRoutes, { prefix, ctx, chain, family });
      await app.register(chainPaymasterRoutes, { prefix, ctx, chain, family });
      await app.register(chainSweepRoutes, { prefix, ctx, chain, family });
      const operations = ctx.familyParts.get(family.name)?.operations(chain) ?? [];
      await app.register(chainOperationRoutes, { prefix, chain, sends: ctx.sends, operations });
    }
  }
};
