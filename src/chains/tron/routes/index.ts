import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FamilyParts, SharedServices } from '../../family.ts';
import { TronSends } from '../sends.ts';
import { tronFeeLimitSun } from '../settings.ts';
import { TronTokenReads } from '../token-reads.ts';
import { tronAddressRoutes } from './addresses.ts';
import { tronBuildRoutes } from './builds.ts';
import { tronReadRoutes } from './reads.ts';
import { tronStakingRoutes } from './staking.ts';
import { tronTransactionRoutes } from './transactions.ts';

/** Where every Tron route lives. */
const prefix = '/api/v2/tron';

/** Tron's own parts, built once per context: its sends and token reads, and the routes over them. */
export function tronParts(shared: SharedServices): FamilyParts {
  const { registry, config, custody, sends: pipeline } = shared;
  const sends = new TronSends({ registry, feeLimitSun: tronFeeLimitSun(config.familySettings) });
  const reads = new TronTokenReads({ registry });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(tronReadRoutes, { prefix, reads });
    await app.register(tronTransactionRoutes, { prefix, pipeline, sends });
    await app.register(tronBuildRoutes, { prefix, sends });
    await app.register(tronAddressRoutes, { prefix, custody });
    await app.register(tronStakingRoutes, { prefix, pipeline, sends });
  };
  return { routes, watcherTasks: [] };
}
