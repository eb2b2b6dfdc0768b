/**
 * The EVM chains this gateway serves and how each differs: chain ids, native coin, fee model, the API's
 * token path segments, finality and public default endpoints. They are data (evm-chains.json, and an
 * operator's EVM_CHAINS_FILE), read once per file when first asked for.
 */
import { settingsText } from '../../config/config-file.ts';
import type { NodeEndpointConfig } from '../../config.ts';
import type { ChainName, Network } from '../types.ts';
import { type EvmChainConfig, readEvmChainFile, shippedEvmChains } from './chain-file.ts';

/** The setting naming an operator's chain file, whose chains are added to (or replace) the shipped ones. */
export const EVM_CHAINS_FILE = 'EVM_CHAINS_FILE';

/** The shipped chains with those of `file` (an operator's) added, a chain of the same name replaced. */
export function evmChainTable(file: string | undefined): ReadonlyMap<ChainName, EvmChainConfig> {
  const chains = shippedEvmChains();
  if (file !== undefined)
    for (const [name, chain] of readEvmChainFile(file, EVM_CHAINS_FILE)) chains.set(name, chain);
  return chains;
}

let table: { named: string; chains: ReadonlyMap<ChainName, EvmChainConfig> } | undefined;

/**
 * The EVM chains this process serves: the shipped ones and EVM_CHAINS_FILE's, as the environment (or
 * CONFIG_FILE) names it, read once (again only when those variables change: tests). Throws ConfigError
 * for a file that cannot be used, which loading the configuration reports first.
 */
export function evmChains(): ReadonlyMap<ChainName, EvmChainConfig> {
  const named = `${process.env[EVM_CHAINS_FILE]}\n${process.env['CONFIG_FILE']}`;
  if (table === undefined || table.named !== named) {
    // A CONFIG_FILE that cannot be read is loadConfig's to report.
    table = { named, chains: evmChainTable(settingsText(process.env, [])[EVM_CHAINS_FILE]) };
  }
  return table.chains;
}

export function isEvmChainName(value: string): boolean {
  return evmChains().has(value);
}

/** One EVM chain's description; throws for a chain that is not an EVM chain this process serves. */
export function evmChain(chain: ChainName): EvmChainConfig {
  const config = evmChains().get(chain);
  if (config === undefined) throw new Error(`${chain} is not an EVM chain`);
  return config;
}

/** What the chain calls each kind of transfer: its coin's symbol, its token standards (BSC: BEP20, BEP721). */
export interface EvmTransferTypes {
  native: string;
  fungible: string;
  nft: string;
}

/** One name per kind of transfer on a chain, shared by lookups, history and notifications. */
export function evmTransferTypes(chain: ChainName): EvmTransferTypes {
  const { nativeSymbol, tokenSegments } = evmChain(chain);
  return {
    native: nativeSymbol,
    fungible: tokenSegments.fungible.toUpperCase(),
    nft: tokenSegments.nft.toUpperCase(),
  };
}

/** Public default endpoints per network, in the shape `ChainFamily.defaults` takes. */
export function evmDefaultEndpoints(chain: ChainName): Record<Network, NodeEndpointConfig[]> {
  const { networks } = evmChain(chain);
  return { mainnet: networks.mainnet.endpoints, testnet: networks.testnet.endpoints };
}
