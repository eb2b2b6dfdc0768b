import type { SettingsTable } from '../config/settings.ts';
import { bitcoinFamily } from './bitcoin/index.ts';
import { evmFamily } from './evm/index.ts';
import type { ChainFamily, FamilyModule } from './family.ts';
import { solanaFamily } from './solana/index.ts';
import { tronFamily } from './tron/index.ts';
import { CHAIN_NAMES, type ChainName } from './types.ts';

/** Every family this build serves. A family is added by writing its folder and listing its module here. */
export const FAMILIES: readonly FamilyModule[] = [tronFamily, evmFamily, solanaFamily, bitcoinFamily];

/** Every chain this build serves, by name: the registry, the node monitor and the watchers read it. */
export const CHAIN_FAMILIES: Partial<Record<ChainName, ChainFamily>> = Object.assign(
  {},
  ...FAMILIES.map((family) => family.chains),
);

/** The chains this build serves, in the API's order: what the OpenAPI lists wherever a chain is named. */
export const SERVED_CHAINS: ChainName[] = CHAIN_NAMES.filter((chain) => CHAIN_FAMILIES[chain] !== undefined);

/** The settings the families read themselves, by name (checked and documented with the gateway's). */
export function familySettings(): SettingsTable {
  return FAMILIES.flatMap((family) => Object.entries(family.settings));
}

export function isServedChain(value: string): value is ChainName {
  return (SERVED_CHAINS as string[]).includes(value);
}

/** The family that serves `chain`; undefined for a chain this build does not serve. */
export function familyOf(chain: ChainName): FamilyModule | undefined {
  return FAMILIES.find((family) => family.chains[chain] !== undefined);
}
