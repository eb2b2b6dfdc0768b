import { type ChainName, NETWORKS, type Network } from '../chains/types.ts';
import { ConfigError, type ConfigProblem } from './error.ts';
import { list } from './setting.ts';

/**
 * `all`, `none`, `configured` (the chains and networks given their own `<CHAIN>_<NETWORK>_URLS`, the
 * default), or a list of `chain` (every network of it) and `chain:network` items.
 */
export type RequiredChains =
  | { kind: 'all' | 'none' | 'configured' }
  | { kind: 'list'; items: { chain: ChainName; network: Network | null }[] };

export function requiredChains(raw: string, name: string): RequiredChains {
  const value = raw.trim().toLowerCase();
  if (value === 'configured' || value === 'all' || value === 'none') return { kind: value };
  const items = list(value).map((item) => {
    const [chain = '', network, ...rest] = item.split(':');
    if (!/^[a-z][a-z0-9]*$/.test(chain) || rest.length > 0) {
      throw new ConfigError(name, `"${item}" is not a chain name, nor chain:network`);
    }
    const named = network === undefined ? null : NETWORKS.find((n) => n === network);
    if (named === undefined)
      throw new ConfigError(name, `"${item}": the network is ${NETWORKS.join(' or ')}`);
    return { chain, network: named };
  });
  if (items.length === 0) throw new ConfigError(name, 'name a chain, or use configured, all or none');
  return { kind: 'list', items };
}

/** The chains a REQUIRED_CHAINS list names that are not served (checked once the families are known). */
export function requiredChainProblems(
  required: RequiredChains,
  served: readonly ChainName[],
): ConfigProblem[] {
  if (required.kind !== 'list') return [];
  const unknown = [...new Set(required.items.map((item) => item.chain))].filter(
    (chain) => !served.includes(chain),
  );
  return unknown.map((chain) => ({
    variable: 'REQUIRED_CHAINS',
    problem: `"${chain}" is not a chain this gateway serves (${served.join(', ')})`,
  }));
}
