import { wsEndpointVariable } from '../config/endpoints.ts';
import type { Config, ConfigProblem, NodeEndpointConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { NodeAttemptObserver } from './adapter-context.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import type { ChainFamily } from './chain-family.ts';
import { type ChainName, NETWORKS, type Network } from './types.ts';

export const UNSUPPORTED_BLOCKCHAIN = 'Unsupported blockchain';

/** The class of a family's adapter (`EvmAdapter`, `TronAdapter`, ...), as `adapterOf` checks it. */
export type AdapterClass<T extends ChainAdapter> = abstract new (...args: never) => T;

/** A chain's adapter is not of the class its family's code expects: the registry was built wrong. */
export class AdapterKindError extends Error {
  constructor(chain: string, network: Network, expected: string, found: string) {
    super(`the ${chain} ${network} adapter is an instance of ${found}, not of ${expected}`);
    this.name = 'AdapterKindError';
  }
}

/** Chain name -> adapter per network. Routes ask it for the adapter of the request's chain and network. */
export class ChainRegistry {
  private readonly adapters = new Map<string, ChainAdapter>();
  /** Chains whose nodes all proved to be another chain or network: never served, whatever is asked. */
  private readonly disabled = new Map<string, string>();
  /** Endpoints the adapters stopped using, and why: `/readyz` shows them. */
  private readonly disabledEndpoints = new Map<string, string>();

  disable(chain: ChainName, network: Network, reason: string): void {
    this.disabled.set(`${chain}:${network}`, reason);
  }

  /**
   * One endpoint serves another chain or network: the adapter stops using it. When it was the last one
   * (or the adapter cannot drop a single endpoint), the chain and network are disabled.
   */
  disableEndpoint(chain: ChainName, network: Network, endpoint: string, reason: string): void {
    this.disabledEndpoints.set(`${chain}:${network}:${endpoint}`, reason);
    const adapter = this.adapters.get(`${chain}:${network}`);
    const left = adapter?.disableEndpoint?.(endpoint) ?? 0;
    if (left === 0) this.disable(chain, network, reason);
  }

  /** Why the endpoint (as its label names it) is no longer used; null while it is. */
  endpointDisabled(chain: ChainName, network: Network, endpoint: string): string | null {
    return this.disabledEndpoints.get(`${chain}:${network}:${endpoint}`) ?? null;
  }

  isDisabled(chain: ChainName, network: Network): boolean {
    return this.disabled.has(`${chain}:${network}`);
  }

  register(adapter: ChainAdapter): void {
    const key = `${adapter.chain}:${adapter.network}`;
    if (this.adapters.has(key)) throw new Error(`adapter for ${key} registered twice`);
    this.adapters.set(key, adapter);
  }

  /** True when the chain has an adapter on at least one network. */
  supports(chain: string): boolean {
    return NETWORKS.some((network) => this.adapters.has(`${chain}:${network}`));
  }

  chains(): ChainName[] {
    return [...new Set([...this.adapters.values()].map((a) => a.chain))];
  }

  networksOf(chain: ChainName): Network[] {
    return NETWORKS.filter((network) => this.adapters.has(`${chain}:${network}`));
  }

  /** The adapter, or the API's 404 `Unsupported blockchain` when the chain or network is not served. */
  get(chain: string, network: Network): ChainAdapter {
    const refusal = this.disabled.get(`${chain}:${network}`);
    if (refusal !== undefined) throw new ApiError(503, `${chain} ${network} is disabled: ${refusal}`);
    const adapter = this.adapters.get(`${chain}:${network}`);
    if (!adapter) {
      const message = this.supports(chain)
        ? `${chain} ${network} is not configured on this gateway`
        : UNSUPPORTED_BLOCKCHAIN;
      throw new ApiError(404, message);
    }
    return adapter;
  }

  /**
   * The adapter as its family's own class, for the family's code that needs more than the shared
   * contract. An adapter of another class is a wiring mistake, not the caller's: an internal error.
   */
  adapterOf<T extends ChainAdapter>(chain: string, network: Network, kind: AdapterClass<T>): T {
    const adapter = this.get(chain, network);
    if (adapter instanceof kind) return adapter;
    throw new AdapterKindError(chain, network, kind.name, adapter.constructor.name);
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.adapters.values()].map((a) => a.close()));
    this.adapters.clear();
  }
}

/** What the registry needs of a served chain's family. */
export type EndpointSource = Pick<ChainFamily, 'defaults' | 'endpointHeaders'>;

/**
 * The configured endpoints of a chain and network, or else the family's public defaults, with the
 * headers the family sends to every endpoint.
 */
export function endpointsOf(
  config: Pick<Config, 'endpoints' | 'familySettings'>,
  chain: ChainName,
  network: Network,
  family: EndpointSource,
): NodeEndpointConfig[] {
  const endpoints = config.endpoints[chain]?.[network] ?? family.defaults[network] ?? [];
  const headers = family.endpointHeaders?.(config.familySettings) ?? {};
  return endpoints.map((endpoint) => ({ ...endpoint, headers: { ...endpoint.headers, ...headers } }));
}

/** A WebSocket endpoint set for a chain whose family cannot subscribe to new blocks is a mistake to name. */
export function wsEndpointProblems(
  config: Pick<Config, 'wsEndpoints'>,
  families: Partial<Record<ChainName, Pick<ChainFamily, 'headSubscription'>>>,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [chain, networks] of Object.entries(config.wsEndpoints) as [
    ChainName,
    Partial<Record<Network, string>>,
  ][]) {
    // A chain no family serves is not used, as its `<CHAIN>_<NETWORK>_URLS` are not.
    if (families[chain] === undefined) continue;
    for (const network of Object.keys(networks) as Network[]) {
      if (families[chain]?.headSubscription === true) continue;
      problems.push({
        variable: wsEndpointVariable(chain, network),
        problem: `${chain} has no new-block subscription: its watcher polls the node`,
      });
    }
  }
  return problems;
}

/** Builds the registry from the configured endpoints (or each family's public defaults). */
export function buildRegistry(
  config: Config,
  logger: Logger,
  families: Partial<Record<ChainName, EndpointSource & Pick<ChainFamily, 'factory'>>>,
  onAttemptFailed?: NodeAttemptObserver,
): ChainRegistry {
  const registry = new ChainRegistry();
  for (const [chain, family] of Object.entries(families) as [
    ChainName,
    NonNullable<(typeof families)[ChainName]>,
  ][]) {
    for (const network of NETWORKS) {
      const endpoints = endpointsOf(config, chain, network, family);
      if (endpoints.length === 0) continue;
      const wsUrl = config.wsEndpoints[chain]?.[network];
      const adapter = family.factory({
        chain,
        network,
        endpoints,
        ...(wsUrl === undefined ? {} : { wsUrl }),
        timeoutMs: config.nodeTimeoutMs,
        retries: config.nodeRetries,
        logger: logger.child({ chain, network }),
        settings: config.familySettings,
        ...(onAttemptFailed === undefined
          ? {}
          : { onAttemptFailed: (endpoint: string) => onAttemptFailed(chain, network, endpoint) }),
      });
      if (adapter) registry.register(adapter);
    }
  }
  return registry;
}
