import { familyOf } from '../../src/chains/families.ts';
import { createLogger } from '../../src/logger.ts';
import { SendOutcomes } from '../../src/services/send-outcomes.ts';
import type { TestGateway } from './gateway.ts';

/** The gateway's send outcomes (services/send-outcomes.ts), for a test to run a pass by hand. */
export function sendOutcomesOf(gw: TestGateway): SendOutcomes {
  return new SendOutcomes({
    transactions: gw.ctx.transactions,
    registry: gw.ctx.registry,
    familyOf,
    logger: createLogger('silent'),
  });
}
