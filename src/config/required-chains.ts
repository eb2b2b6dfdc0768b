import { CHAIN_NAMES, type ChainName, isChainName, NETWORKS, type Network } from '../chains/types.ts';
import { ConfigError } from './error.ts';
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
    if (!isChainName(chain) || rest.length > 0) {
      throw new ConfigError(name, `"${item}" is not a chain (${CHAIN_NAMES.join(', ')})`);
    }
    const named = network === undefined ? null : NETWORKS.find((n) => n === network);
    if (named === undefined)
      throw new ConfigError(name, `"${item}": the network is ${NETWORKS.join(' or ')}`);
    return { chain, network: named };
  });
  if (items.length === 0) throw new ConfigError(name, 'name a chain, or use configured, all or none');
  return { kind: 'list', items };
}
