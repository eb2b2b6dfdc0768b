// A gateway whose watcher and deliverer run, as the webhook tests use one: webhooks may reach loopback
// (where the test's receiver listens), a node is asked once more at most, the nodes `env` does not name are
// dead ports, only warnings are logged, the roles poll every 50 ms (or at the gateway's own pace), and one
// enterprise user holds a token.
import { type BackgroundRoles, startBackgroundRoles } from '../../src/roles.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { withUnnamedNodesDead } from './unserved-nodes.ts';

export interface WatchingGateway {
  gw: TestGateway;
  roles: BackgroundRoles;
  token: string;
}

/**
 * `env` names the nodes (and any other setting, which wins over the defaults above). `pace: 'production'`
 * leaves the roles at the gateway's own pace (a watcher paced by its chain's block time).
 */
export async function startWatchingGateway(
  env: Record<string, string>,
  pace: 'fixed' | 'production' = 'fixed',
): Promise<WatchingGateway> {
  const gw = await startGateway({
    env: withUnnamedNodesDead({
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      NODE_RETRIES: '1',
      LOG_LEVEL: 'warn',
      ...env,
    }),
  });
  const roles =
    pace === 'fixed' ? startBackgroundRoles(gw.ctx, { pollMs: 50 }) : startBackgroundRoles(gw.ctx);
  const { token } = await gw.userToken(undefined, 'enterprise');
  return { gw, roles, token };
}
