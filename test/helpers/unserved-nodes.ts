import { servedChains } from '../../src/chains/families.ts';
import { NETWORKS } from '../../src/chains/types.ts';

/** Nothing listens on the discard port: a node call fails at once. */
const DEAD_NODE = 'http://127.0.0.1:9';

/**
 * `env` with every node it does not name pointed at a dead port. A test gateway that runs one chain's
 * devnet would otherwise ask the public nodes of all the others, which this machine may not reach: their
 * watchers and monitor retry them in the background, and stopping the roles waits seconds for those calls.
 */
export function withUnnamedNodesDead(env: Record<string, string>): Record<string, string> {
  const dead = servedChains().flatMap((chain) =>
    NETWORKS.map((network) => [`${chain.toUpperCase()}_${network.toUpperCase()}_URLS`, DEAD_NODE]),
  );
  return { ...Object.fromEntries(dead), ...env };
}
