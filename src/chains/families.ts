import type { ConfigProblem } from '../config/error.ts';
import { requiredChainProblems } from '../config/required-chains.ts';
import type { SettingsTable } from '../config/settings.ts';
import type { Config } from '../config.ts';
import { bitcoinFamily } from './bitcoin/index.ts';
import type { ChainFamily } from './chain-family.ts';
import { evmFamily } from './evm/index.ts';
import type { FamilyModule } from './family.ts';
import { wsEndpointProblems } from './registry.ts';
import { solanaFamily } from './solana/index.ts';
import { tonFamily } from './ton/index.ts';
import { tronFamily } from './tron/index.ts';
import type { ChainName } from './types.ts';

/** Every family this build serves. A family is added by writing its folder and listing its module here. */
export const FAMILIES: readonly FamilyModule[] = [
  tronFamily,
  evmFamily,
  solanaFamily,
  bitcoinFamily,
  tonFamily,
];

/**
 * Every chain served, by name: the registry, the node monitor and the watchers read it. Worked out when
 * asked, as the EVM family's chains are read from its chain files. A name two families claim is refused.
 */
export function chainFamilies(): Partial<Record<ChainName, ChainFamily>> {
  const chains: Partial<Record<ChainName, ChainFamily>> = {};
  for (const family of FAMILIES) {
    for (const [chain, served] of Object.entries(family.chains)) {
      if (Object.hasOwn(chains, chain)) throw new Error(`the chain name ${chain} is taken by two families`);
      chains[chain] = served;
    }
  }
  return chains;
}

/** The chains served, in the API's order (the families', each in its own order): what the OpenAPI lists. */
export function servedChains(): ChainName[] {
  return Object.keys(chainFamilies());
}

/** What is wrong with the settings that name chains, once the served chains are known. */
export function servedChainProblems(config: Pick<Config, 'wsEndpoints' | 'requiredChains'>): ConfigProblem[] {
  const families = chainFamilies();
  return [
    ...wsEndpointProblems(config, families),
    ...requiredChainProblems(config.requiredChains, Object.keys(families)),
  ];
}

/** The settings the families read themselves, by name (checked and documented with the gateway's). */
export function familySettings(): SettingsTable {
  return FAMILIES.flatMap((family) => Object.entries(family.settings));
}

export function isServedChain(value: string): value is ChainName {
  return familyOf(value) !== undefined;
}

/** The family that serves `chain`; undefined for a chain this build does not serve. */
export function familyOf(chain: ChainName): FamilyModule | undefined {
  return FAMILIES.find((family) => Object.hasOwn(family.chains, chain));
}
