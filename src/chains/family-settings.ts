/**
 * What `config check` and the admin commands need of each family without loading its chain libraries
 * (which took seconds): the settings the family reads itself, the chains it serves, with whether their
 * watchers can subscribe to new blocks, and the migrations of its own tables. `families.ts` holds each family whole; test/unit/family-settings.test.ts holds this file to
 * it, so a family added there and not here fails the suite.
 */
import type { Migration } from 'kysely';
import type { ConfigProblem } from '../config/error.ts';
import { requiredChainProblems } from '../config/required-chains.ts';
import type { SettingsTable } from '../config/settings.ts';
import type { Config } from '../config.ts';
import { bitcoinMigrations } from './bitcoin/migrations/index.ts';
import { BITCOIN_SETTINGS } from './bitcoin/settings.ts';
import type { ChainFamily } from './chain-family.ts';
import { evmChains } from './evm/chains.ts';
import { evmMigrations } from './evm/migrations/index.ts';
import { EVM_SETTINGS } from './evm/settings.ts';
import { wsEndpointProblems } from './registry.ts';
import { tonMigrations } from './ton/migrations/index.ts';
import { TON_SETTINGS } from './ton/settings.ts';
import { TRON_SETTINGS } from './tron/settings.ts';
import type { ChainName } from './types.ts';

/** Each family's own migrations, in the order of `FAMILIES` (Tron and Solana keep no tables of their own). */
export const LIGHT_FAMILY_MIGRATIONS: readonly Readonly<Record<string, Migration>>[] = [
  evmMigrations,
  bitcoinMigrations,
  tonMigrations,
];

/** Each family's own settings, in the order of `FAMILIES` (Solana reads none). */
export function lightFamilySettings(): SettingsTable {
  return [TRON_SETTINGS, EVM_SETTINGS, BITCOIN_SETTINGS, TON_SETTINGS].flatMap((settings) =>
    Object.entries(settings),
  );
}

/** Every chain served, in the order of `chainFamilies()`, with its new-block subscription when it has one. */
export function lightServedChains(): Partial<Record<ChainName, Pick<ChainFamily, 'headSubscription'>>> {
  const subscribed = { headSubscription: true } as const;
  return {
    tron: {},
    ...Object.fromEntries([...evmChains().keys()].map((chain) => [chain, subscribed])),
    solana: subscribed,
    bitcoin: {},
    ton: {},
  };
}

/** `servedChainProblems` of families.ts, from the light table. */
export function lightServedChainProblems(
  config: Pick<Config, 'wsEndpoints' | 'requiredChains'>,
): ConfigProblem[] {
  const chains = lightServedChains();
  return [
    ...wsEndpointProblems(config, chains),
    ...requiredChainProblems(config.requiredChains, Object.keys(chains)),
  ];
}
