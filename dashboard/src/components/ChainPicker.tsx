import { href, navigate } from '../router.ts';
import { SelectField } from './Field.tsx';

const NAMES: Record<string, string> = {
  tron: 'Tron',
  ethereum: 'Ethereum',
  bsc: 'BSC',
  polygon: 'Polygon',
  arbitrum: 'Arbitrum',
  solana: 'Solana',
  bitcoin: 'Bitcoin',
};

export function chainName(chain: string): string {
  return NAMES[chain] ?? chain;
}

const KEY = 'switchyard.chain';

/**
 * The chain a per-chain page shows: the URL's ?chain=, else the last one chosen, else the first the user has
 * addresses or webhooks on, else the first served.
 */
export function chosenChain(query: URLSearchParams, chains: string[], used: readonly string[] = []): string {
  const asked = query.get('chain');
  if (asked && chains.includes(asked)) return asked;
  let last: string | null = null;
  try {
    last = localStorage.getItem(KEY);
  } catch {
    last = null;
  }
  if (last && chains.includes(last)) return last;
  return used.find((chain) => chains.includes(chain)) ?? chains[0] ?? 'tron';
}

/** Chooses the chain of a per-chain page; the choice goes into the URL (and is remembered, not a secret). */
export function ChainPicker({ path, chain, chains }: { path: string; chain: string; chains: string[] }) {
  return (
    <SelectField
      compact
      label="Chain"
      value={chain}
      options={chains.map((value) => ({ value, label: chainName(value) }))}
      onChange={(value) => {
        try {
          localStorage.setItem(KEY, value);
        } catch {
          // No storage: the URL still carries the choice.
        }
        navigate(href(path, { chain: value }));
      }}
    />
  );
}
