/**
 * The network every API call targets (X-Network). Not a secret: kept in localStorage so that the choice
 * survives a reload.
 */
export type Network = 'mainnet' | 'testnet';
export const NETWORKS: readonly Network[] = ['mainnet', 'testnet'];

const KEY = 'switchyard.network';

function stored(): Network {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'testnet' ? 'testnet' : 'mainnet';
  } catch {
    return 'mainnet';
  }
}

let network: Network = stored();
const listeners = new Set<(network: Network) => void>();

export function currentNetwork(): Network {
  return network;
}

export function setNetwork(next: Network): void {
  if (next === network) return;
  network = next;
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // Private mode without storage: the choice lasts until the page is reloaded.
  }
  for (const listener of listeners) listener(next);
}

export function onNetworkChange(listener: (network: Network) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
