import type { Config, NodeEndpointConfig } from '../config.ts';
import { nodeCallsKey, TroubleLog } from '../health/trouble-log.ts';
import type { Logger } from '../logger.ts';
import type { NetworkProbe } from './network-probe.ts';
import { endpointLabels, NodeClient } from './node-client.ts';
import { type ChainRegistry, endpointsOf } from './registry.ts';
import type { ChainName, Network } from './types.ts';

/** What the check needs of a family: where its default nodes are and how to ask one its network. */
export interface CheckedFamily {
  defaults: Partial<Record<Network, NodeEndpointConfig[]>>;
  identify: NetworkProbe;
}

export async function checkNodes(
  registry: ChainRegistry,
  families: Partial<Record<ChainName, CheckedFamily>>,
  config: Pick<Config, 'endpoints' | 'familySettings' | 'nodeTimeoutMs' | 'nodeRetries'>,
  logger: Logger,
  troubleLog: TroubleLog = new TroubleLog(),
): Promise<void> {
  const checks = registry.chains().flatMap((chain) => {
    const family = families[chain];
    if (family === undefined) return [];
    return registry.networksOf(chain).flatMap((network) => {
      const endpoints = endpointsOf(config, chain, network, family);
      const labels = endpointLabels(endpoints.map((endpoint) => new URL(endpoint.url)));
      return endpoints.map(async (endpoint, i) => {
        const label = labels[i]!;
        const fields = { chain, network, endpoint: label };
        const client = new NodeClient({
          chain,
          network,
          endpoints: [endpoint],
          timeoutMs: config.nodeTimeoutMs,
          retries: config.nodeRetries,
          connections: 1,
        });
        try {
          const { expected, found, matches } = await family.identify(client, network, config.familySettings);
          if (found === null) {
            logger.warn(
              fields,
              `${chain} ${network} node ${label} does not tell its network (expected ${expected})`,
            );
          } else if (!matches) {
            const reason = `node ${label} is on another network: expected ${expected}, found ${found}`;
            registry.disableEndpoint(chain, network, label, reason);
            logger.error(fields, `${chain} ${network} ${reason}; endpoint disabled`);
          }
        } catch (error) {
          troubleLog.failed(
            nodeCallsKey(chain, network),
            logger,
            fields,
            error,
            'node not reachable at start',
          );
        } finally {
          await client.close();
        }
      });
    });
  });
  await Promise.all(checks);
}
