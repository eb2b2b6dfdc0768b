// The gateway the suites that probe every route's input handling start: no node reachable, one plan
// without quotas or a rate limit (the probes come faster than a plan allows), and budgets per client
// address too large to bite, since every test request comes from 127.0.0.1.
import { startGateway, type TestGateway, UNLIMITED_PLAN_ENV } from './gateway.ts';
import { OFFLINE_NODES_ENV } from './offline-nodes.ts';

/**
 * A gateway on offline nodes whose sign-in and sign-up budgets per address never answer 429, so each
 * request reaches its body's validation (those budgets are tested in dashboard-session.test.ts).
 */
export function startInputProbeGateway(): Promise<TestGateway> {
  return startGateway({
    env: {
      ...OFFLINE_NODES_ENV,
      ...UNLIMITED_PLAN_ENV,
      LOG_LEVEL: 'warn',
      SIGN_IN_RATE_PER_CLIENT: '1000000/1',
      SIGN_UP_RATE_PER_CLIENT: '1000000/1',
    },
  });
}
