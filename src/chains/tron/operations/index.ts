/**
 * Tron's routes under /api/v2/tron, as operations (`chains/operations.ts`): TRX, TRC10, TRC20 and TRC721
 * sends, builds and broadcasts, Stake 2.0, token reads and chain parameters. Sends answer with Tron's
 * words through the family's `SendWording`; staking answers 200 with each action's message.
 */
import type { FamilyParts } from '../../family.ts';
import type { FamilyPorts } from '../../ports.ts';
import { TronFeeSponsor } from '../fee-sponsor.ts';
import { TronSends } from '../sends.ts';
import { tronFeeLimitSun } from '../settings.ts';
import { TronTokenReads } from '../token-reads.ts';
import { buildOperations } from './builds.ts';
import { readOperations } from './reads.ts';
import { stakingOperations } from './staking.ts';
import { transactionOperations } from './transactions.ts';

/**
 * Tron's own parts, built once per context: its sends and token reads, the operations over them, and
 * its fee sponsor (delegated energy and bandwidth).
 */
export function tronParts({ registry, settings }: FamilyPorts): FamilyParts {
  const feeLimitSun = tronFeeLimitSun(settings);
  const sends = new TronSends({ registry, feeLimitSun });
  const operations = [
    ...readOperations(new TronTokenReads({ registry })),
    ...transactionOperations(sends),
    ...buildOperations(sends),
    ...stakingOperations(sends),
  ];
  return {
    operations: () => operations,
    watcherTasks: [],
    sponsor: new TronFeeSponsor({ registry, feeLimitSun }),
  };
}
