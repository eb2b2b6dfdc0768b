import type { ChainName, Network } from '../chains/types.ts';
import type { Config, RequiredChains } from '../config.ts';
import type { ChainNetworkStatus } from './node-monitor.ts';

export interface ChainReadiness extends ChainNetworkStatus {
  required: boolean;
  /** At least one endpoint in use answered its last probe. */
  reachable: boolean;
}

/** A fee sponsor the operator set (never its key), and whether this gateway pays fees with it. */
export interface SponsorReadiness {
  chain: ChainName;
  network: Network;
  address: string;
  /** The chain and network are served and the chain's family can sponsor fees. */
  served: boolean;
}

export interface Readiness {
  ready: boolean;
  database: { up: boolean };
  chains: ChainReadiness[];
  sponsors: SponsorReadiness[];
}

/**
 * What /readyz answers: ready when the database answers and every required chain and network has an
 * endpoint that answered its last probe. A required chain the gateway does not serve counts as unreachable.
 */
export function readinessOf(
  statuses: ChainNetworkStatus[],
  config: Pick<Config, 'endpoints' | 'requiredChains'>,
  databaseUp: boolean,
  sponsors: SponsorReadiness[] = [],
): Readiness {
  const chains = statuses.map((status) => ({
    chain: status.chain,
    network: status.network,
    required: isRequired(config, status.chain, status.network),
    reachable: status.endpoints.some((endpoint) => endpoint.up && endpoint.disabled === null),
    endpoints: status.endpoints,
  }));
  for (const missing of requiredButNotServed(config.requiredChains, statuses)) {
    chains.push({ ...missing, required: true, reachable: false, endpoints: [] });
  }
  const ready = databaseUp && chains.every((chain) => !chain.required || chain.reachable);
  return { ready, database: { up: databaseUp }, chains, sponsors };
}

function isRequired(
  { requiredChains, endpoints }: Pick<Config, 'endpoints' | 'requiredChains'>,
  chain: ChainName,
  network: Network,
): boolean {
  switch (requiredChains.kind) {
    case 'all':
      return true;
    case 'none':
      return false;
    case 'configured':
      return endpoints[chain]?.[network] !== undefined;
    case 'list':
      return requiredChains.items.some(
        (item) => item.chain === chain && (item.network ?? network) === network,
      );
  }
}

/** Items of a REQUIRED_CHAINS list this gateway serves on no network (a chain alone stands for mainnet). */
function requiredButNotServed(
  required: RequiredChains,
  statuses: ChainNetworkStatus[],
): { chain: ChainName; network: Network }[] {
  if (required.kind !== 'list') return [];
  return required.items
    .filter(
      (item) => !statuses.some((s) => s.chain === item.chain && (item.network ?? s.network) === s.network),
    )
    .map((item) => ({ chain: item.chain, network: item.network ?? 'mainnet' }));
}
