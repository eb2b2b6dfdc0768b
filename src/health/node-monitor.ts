import type { ChainFamily } from '../chains/chain-family.ts';
import { endpointLabels, NodeClient } from '../chains/node-client.ts';
import { type ChainRegistry, endpointsOf } from '../chains/registry.ts';
import type { ChainName, HeadProbe, Network } from '../chains/types.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { EndpointLabels, NodeMetrics } from './node-metrics.ts';
import { nodeCallsKey, shortReason, type TroubleLog } from './trouble-log.ts';

/** What the last probe of one endpoint found; `up` is false until a probe has answered. */
export interface EndpointStatus {
  endpoint: string;
  up: boolean;
  height: number | null;
  /** Blocks behind the highest head among the endpoints of its chain and network that are up. */
  lag: number | null;
  latencyMs: number | null;
  error: string | null;
  checkedAt: string | null;
  /** Why the gateway stopped using it (a node on another network); null while it is used. */
  disabled: string | null;
}

export interface ChainNetworkStatus {
  chain: ChainName;
  network: Network;
  endpoints: EndpointStatus[];
}

interface Target extends EndpointLabels {
  chain: ChainName;
  network: Network;
  client: NodeClient;
  probe: HeadProbe;
  last: Omit<EndpointStatus, 'endpoint' | 'lag' | 'disabled'>;
}

export interface NodeMonitorOptions {
  config: Pick<Config, 'endpoints' | 'familySettings' | 'nodeProbeIntervalMs' | 'nodeTimeoutMs'>;
  registry: ChainRegistry;
  families: Partial<Record<ChainName, ChainFamily>>;
  metrics: NodeMetrics;
  trouble: TroubleLog;
  logger: Logger;
}

/**
 * Asks every configured endpoint of every served chain and network for its head, every
 * NODE_PROBE_INTERVAL_SECONDS, each endpoint on its own (no retries, no failover: the question is whether
 * that endpoint answers). Feeds /readyz, the node metrics and the endpoint up/down warnings.
 */
export class NodeMonitor {
  readonly #targets: Target[];
  readonly #options: NodeMonitorOptions;
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;
  #stopped: Promise<void> | null = null;

  constructor(options: NodeMonitorOptions) {
    this.#options = options;
    this.#targets = targetsOf(options);
    for (const target of this.#targets) options.metrics.register(labelsOf(target));
  }

  /** Probes now, then every interval; a round still running when the next is due is not doubled. */
  start(): void {
    if (this.#timer !== null || this.#stopped !== null) return;
    const tick = () => {
      this.#round ??= this.probeAll().finally(() => {
        this.#round = null;
      });
    };
    tick();
    this.#timer = setInterval(tick, this.#options.config.nodeProbeIntervalMs);
    this.#timer.unref();
  }

  /** One round over every endpoint at once. */
  async probeAll(): Promise<void> {
    await Promise.all(this.#targets.map((target) => this.#probe(target)));
  }

  status(): ChainNetworkStatus[] {
    const groups = new Map<string, ChainNetworkStatus & { targets: Target[] }>();
    for (const target of this.#targets) {
      const key = `${target.chain}:${target.network}`;
      let group = groups.get(key);
      if (group === undefined) {
        group = { chain: target.chain, network: target.network, endpoints: [], targets: [] };
        groups.set(key, group);
      }
      group.targets.push(target);
    }
    return [...groups.values()].map(({ chain, network, targets }) => {
      const heights = targets.flatMap((t) => (t.last.up && t.last.height !== null ? [t.last.height] : []));
      const best = heights.length === 0 ? null : Math.max(...heights);
      const endpoints = targets.map((t) => ({
        endpoint: t.endpoint,
        ...t.last,
        lag: best !== null && t.last.up && t.last.height !== null ? best - t.last.height : null,
        disabled: this.#options.registry.endpointDisabled(chain, network, t.endpoint),
      }));
      return { chain, network, endpoints };
    });
  }

  /**
   * Ends the probes: the clients close first, so a probe waiting on a node that does not answer ends at
   * once rather than at its timeout (a shutdown must not wait for it). Stopping again waits for the same.
   */
  stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#stopped ??= (async () => {
      await Promise.allSettled(this.#targets.map((target) => target.client.close()));
      await this.#round;
    })();
    return this.#stopped;
  }

  async #probe(target: Target): Promise<void> {
    const { metrics, trouble, logger } = this.#options;
    const labels = labelsOf(target);
    const started = performance.now();
    try {
      const height = await target.probe();
      const latencyMs = Math.round(performance.now() - started);
      metrics.probeSucceeded(labels, height, latencyMs);
      target.last = {
        up: true,
        height: Number(height),
        latencyMs,
        error: null,
        checkedAt: new Date().toISOString(),
      };
      trouble.recovered(endpointKey(target), logger, labels, 'node endpoint up again');
      trouble.recovered(
        nodeCallsKey(target.chain, target.network),
        logger,
        labels,
        'node calls answer again',
      );
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      metrics.probeFailed(labels, latencyMs);
      target.last = {
        up: false,
        height: target.last.height,
        latencyMs,
        error: withoutHost(shortReason(error), target.endpoint),
        checkedAt: new Date().toISOString(),
      };
      trouble.failed(endpointKey(target), logger, labels, error, 'node endpoint down');
    }
  }
}

function targetsOf({ config, registry, families }: NodeMonitorOptions): Target[] {
  const targets: Target[] = [];
  for (const chain of registry.chains()) {
    const family = families[chain];
    if (family === undefined) continue;
    for (const network of registry.networksOf(chain)) {
      const endpoints = endpointsOf(config, chain, network, family);
      const labels = endpointLabels(endpoints.map((e) => new URL(e.url)));
      endpoints.forEach((endpoint, i) => {
        const client = new NodeClient({
          chain,
          network,
          endpoints: [endpoint],
          timeoutMs: Math.min(config.nodeTimeoutMs, config.nodeProbeIntervalMs),
          retries: 0,
          connections: 1,
        });
        targets.push({
          chain,
          network,
          endpoint: labels[i]!,
          client,
          probe: family.probe(client, network, config.familySettings),
          last: { up: false, height: null, latencyMs: null, error: null, checkedAt: null },
        });
      });
    }
  }
  return targets;
}

function labelsOf(target: Target): EndpointLabels {
  return { chain: target.chain, network: target.network, endpoint: target.endpoint };
}

function endpointKey(target: Target): string {
  return `node endpoint ${target.chain} ${target.network} ${target.endpoint}`;
}

/** The report names the endpoint beside the error: drop the host the client's reason starts with. */
function withoutHost(reason: string, endpoint: string): string {
  const host = endpoint.replace(/ \(endpoint \d+\)$/, '');
  return reason.startsWith(`${host} `) ? reason.slice(host.length + 1) : reason;
}
