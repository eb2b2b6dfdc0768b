import { withUnnamedNodesDead } from './unserved-nodes.ts';

/** Gateway settings under which every chain's node is unreachable and fails without retrying. */
export const OFFLINE_NODES_ENV: Record<string, string> = withUnnamedNodesDead({
  NODE_RETRIES: '0',
  NODE_TIMEOUT_MS: '1000',
  PRICE_PROVIDERS: 'local',
});
