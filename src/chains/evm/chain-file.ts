/**
 * The EVM chain file: the chains the gateway ships (evm-chains.json beside this module) and an operator's
 * own (EVM_CHAINS_FILE), in one format, checked against its schema when read.
 */
import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../../config/error.ts';
import { isHttpUrl } from '../../config/setting.ts';
import type { NodeEndpointConfig } from '../../config.ts';
import type { Finality } from '../follower.ts';
import type { ChainName, Network } from '../types.ts';
import shipped from './evm-chains.json' with { type: 'json' };

/** A chain's name: its path segment and, upper case, the start of its `<CHAIN>_<NETWORK>_URLS`. */
export const EVM_CHAIN_NAME_PATTERN = '^[a-z][a-z0-9]*$';
const Word = Type.String({ pattern: '^[a-z][a-z0-9]*$' });
const Depth = Type.Integer({ minimum: 1, maximum: 100_000 });
const Comment = Type.Optional(Type.String());

const NetworkEntry = Type.Object(
  {
    chainId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    name: Type.String({ minLength: 1 }),
    minPriorityFeeWei: Type.String({ pattern: '^(0|[1-9][0-9]*)$' }),
    finality: Type.Object({ finalityDepth: Depth, reorgDepth: Depth }, { additionalProperties: false }),
    endpoints: Type.Array(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const ChainEntry = Type.Object(
  {
    $comment: Comment,
    nativeSymbol: Type.String({ pattern: '^[A-Z0-9]{1,12}$' }),
    priceSymbol: Type.String({ pattern: '^[A-Z0-9]{1,12}$' }),
    feeModel: Type.Union([Type.Literal('eip1559'), Type.Literal('legacy')]),
    priorityFee: Type.Union([Type.Literal('market'), Type.Literal('none')]),
    tokenSegments: Type.Object({ fungible: Word, nft: Word }, { additionalProperties: false }),
    typeAliases: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z0-9]+$' }), Type.String())),
    networks: Type.Object({ mainnet: NetworkEntry, testnet: NetworkEntry }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

/** The file: `{"chains": {"<name>": {...}}}`. */
export const EvmChainFile = Type.Object(
  {
    $comment: Comment,
    chains: Type.Record(Type.String({ pattern: EVM_CHAIN_NAME_PATTERN }), ChainEntry, {
      additionalProperties: false,
    }),
  },
  { additionalProperties: false },
);
type NetworkEntry = Static<typeof NetworkEntry>;

/** The chains the gateway ships (the build copies the imported file into dist). */
export function shippedEvmChains(): Map<string, EvmChainConfig> {
  return evmChainsOf(shipped, 'src/chains/evm/evm-chains.json', 'the shipped EVM chains');
}

/**
 * Reads and checks an operator's chain file; throws ConfigError on `variable` naming the file and the
 * first field that is wrong.
 */
export function readEvmChainFile(file: string, variable: string): Map<string, EvmChainConfig> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(variable, `cannot read ${file} as JSON (${(error as Error).message})`);
  }
  return evmChainsOf(parsed, file, variable);
}

function evmChainsOf(parsed: unknown, where: string, variable: string): Map<string, EvmChainConfig> {
  if (!Value.Check(EvmChainFile, parsed)) {
    const wrong = Value.Errors(EvmChainFile, parsed).First();
    throw new ConfigError(
      variable,
      `${where}: ${wrong?.path || '/'} ${wrong?.message.toLowerCase() ?? 'is wrong'}`,
    );
  }
  const chains = new Map<string, EvmChainConfig>();
  for (const [chain, entry] of Object.entries(parsed.chains)) {
    const { $comment: _comment, networks, ...rest } = entry;
    chains.set(chain, {
      chain,
      ...rest,
      networks: {
        mainnet: networkOf(networks.mainnet, `${where}: /chains/${chain}/networks/mainnet`, variable),
        testnet: networkOf(networks.testnet, `${where}: /chains/${chain}/networks/testnet`, variable),
      },
    });
  }
  return chains;
}

function networkOf(entry: NetworkEntry, where: string, variable: string): EvmNetworkConfig {
  const badUrl = entry.endpoints.findIndex((url) => !isHttpUrl(url));
  if (badUrl >= 0) throw new ConfigError(variable, `${where}/endpoints/${badUrl} is not an http(s) URL`);
  return {
    chainId: entry.chainId,
    name: entry.name,
    minPriorityFeeWei: BigInt(entry.minPriorityFeeWei),
    finality: entry.finality,
    endpoints: entry.endpoints.map((url) => ({ url, headers: {} })),
  };
}

/**
 * `eip1559`: type-2 transactions priced from eth_feeHistory. `legacy`: type-0 transactions at eth_gasPrice
 * (BSC: its base fee is fixed at 0 and validators set a minimum gas price by policy, node-apis.md 2.2).
 */
export type EvmFeeModel = 'eip1559' | 'legacy';

export interface EvmNetworkConfig {
  chainId: number;
  /** Human name, used in messages. */
  name: string;
  /**
   * Lowest priority fee validators accept, in wei; defaults below it would sit in the mempool
   * (Polygon enforces a minimum tip).
   */
  minPriorityFeeWei: bigint;
  /** How deep the webhook watcher follows reorgs, and when a block is final. */
  finality: Finality;
  endpoints: NodeEndpointConfig[];
}

export interface EvmChainConfig {
  chain: ChainName;
  nativeSymbol: string;
  /** The symbol the price API knows the native coin by. */
  priceSymbol: string;
  feeModel: EvmFeeModel;
  /** Arbitrum ignores the priority fee, so paying one only raises the fee cap for nothing. */
  priorityFee: 'market' | 'none';
  /** Path segments of the API's token routes (`/transactions/erc20`, BSC `/bep20`). */
  tokenSegments: { fungible: string; nft: string };
  /** Other names a webhook's `type` filter accepts, to the chain's own (Polygon's coin was MATIC). */
  typeAliases?: Record<string, string>;
  networks: Record<Network, EvmNetworkConfig>;
}
