/**
 * The EVM chains this gateway serves and how each differs: chain ids, native coin, fee model, the API's
 * token path segments, finality and public default endpoints. Everything chain-specific lives in this one
 * table.
 */
import type { NodeEndpointConfig } from '../../config.ts';
import type { Finality } from '../follower.ts';
import type { Network } from '../types.ts';

export const EVM_CHAIN_NAMES = ['ethereum', 'bsc', 'polygon', 'arbitrum'] as const;
export type EvmChainName = (typeof EVM_CHAIN_NAMES)[number];

export function isEvmChainName(value: string): value is EvmChainName {
  return (EVM_CHAIN_NAMES as readonly string[]).includes(value);
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
  chain: EvmChainName;
  nativeSymbol: string;
  feeModel: EvmFeeModel;
  /** Arbitrum ignores the priority fee, so paying one only raises the fee cap for nothing. */
  priorityFee: 'market' | 'none';
  /** Path segments of the API's token routes (`/transactions/erc20`, BSC `/bep20`). */
  tokenSegments: { fungible: 'erc20' | 'bep20'; nft: 'erc721' | 'bep721' };
  networks: Record<Network, EvmNetworkConfig>;
}

const GWEI = 1_000_000_000n;

/** Proof of stake finalizes a checkpoint two epochs (64 slots) back; nothing older can be reverted. */
const ETHEREUM_FINALITY: Finality = { finalityDepth: 64, reorgDepth: 64 };
/** Fast finality usually settles a block in 2; without it, 2/3 of the 21 validators + 1 = 15 blocks. */
const BSC_FINALITY: Finality = { finalityDepth: 15, reorgDepth: 15 };
/** Bor reorgs of over 100 blocks were seen before milestones (2023): keep the 256 the watcher always kept. */
const POLYGON_FINALITY: Finality = { finalityDepth: 256, reorgDepth: 256 };
/**
 * The sequencer's order does not reorg (64 is a margin); a block is final once its batch is final on L1,
 * about 20 minutes or 4800 blocks of 0.25 s.
 */
const ARBITRUM_FINALITY: Finality = { finalityDepth: 4800, reorgDepth: 64 };

function endpoints(...urls: string[]): NodeEndpointConfig[] {
  return urls.map((url) => ({ url, headers: {} }));
}

export const EVM_CHAINS: Readonly<Record<EvmChainName, EvmChainConfig>> = {
  ethereum: {
    chain: 'ethereum',
    nativeSymbol: 'ETH',
    feeModel: 'eip1559',
    priorityFee: 'market',
    tokenSegments: { fungible: 'erc20', nft: 'erc721' },
    networks: {
      mainnet: {
        chainId: 1,
        name: 'Ethereum',
        minPriorityFeeWei: 0n,
        finality: ETHEREUM_FINALITY,
        endpoints: endpoints('https://ethereum-rpc.publicnode.com', 'https://eth.drpc.org'),
      },
      testnet: {
        chainId: 11155111,
        name: 'Sepolia',
        minPriorityFeeWei: 0n,
        finality: ETHEREUM_FINALITY,
        endpoints: endpoints('https://ethereum-sepolia-rpc.publicnode.com', 'https://sepolia.drpc.org'),
      },
    },
  },
  bsc: {
    chain: 'bsc',
    nativeSymbol: 'BNB',
    feeModel: 'legacy',
    priorityFee: 'market',
    tokenSegments: { fungible: 'bep20', nft: 'bep721' },
    networks: {
      mainnet: {
        chainId: 56,
        name: 'BNB Smart Chain',
        minPriorityFeeWei: 0n,
        finality: BSC_FINALITY,
        endpoints: endpoints('https://bsc-dataseed.bnbchain.org', 'https://bsc-rpc.publicnode.com'),
      },
      testnet: {
        chainId: 97,
        name: 'BNB Smart Chain testnet',
        minPriorityFeeWei: 0n,
        finality: BSC_FINALITY,
        endpoints: endpoints(
          'https://data-seed-prebsc-1-s1.bnbchain.org:8545',
          'https://bsc-testnet-rpc.publicnode.com',
        ),
      },
    },
  },
  polygon: {
    chain: 'polygon',
    nativeSymbol: 'POL',
    feeModel: 'eip1559',
    priorityFee: 'market',
    tokenSegments: { fungible: 'erc20', nft: 'erc721' },
    networks: {
      mainnet: {
        chainId: 137,
        name: 'Polygon PoS',
        minPriorityFeeWei: 25n * GWEI,
        finality: POLYGON_FINALITY,
        endpoints: endpoints('https://polygon-rpc.com', 'https://polygon-bor-rpc.publicnode.com'),
      },
      testnet: {
        chainId: 80002,
        name: 'Polygon Amoy',
        minPriorityFeeWei: 25n * GWEI,
        finality: POLYGON_FINALITY,
        endpoints: endpoints(
          'https://rpc-amoy.polygon.technology',
          'https://polygon-amoy-bor-rpc.publicnode.com',
        ),
      },
    },
  },
  arbitrum: {
    chain: 'arbitrum',
    nativeSymbol: 'ETH',
    feeModel: 'eip1559',
    priorityFee: 'none',
    tokenSegments: { fungible: 'erc20', nft: 'erc721' },
    networks: {
      mainnet: {
        chainId: 42161,
        name: 'Arbitrum One',
        minPriorityFeeWei: 0n,
        finality: ARBITRUM_FINALITY,
        endpoints: endpoints('https://arb1.arbitrum.io/rpc', 'https://arbitrum-one-rpc.publicnode.com'),
      },
      testnet: {
        chainId: 421614,
        name: 'Arbitrum Sepolia',
        minPriorityFeeWei: 0n,
        finality: ARBITRUM_FINALITY,
        endpoints: endpoints(
          'https://sepolia-rollup.arbitrum.io/rpc',
          'https://arbitrum-sepolia-rpc.publicnode.com',
        ),
      },
    },
  },
};

/** What the chain calls each kind of transfer: its coin's symbol, its token standards (BSC: BEP20, BEP721). */
export interface EvmTransferTypes {
  native: string;
  fungible: string;
  nft: string;
}

/** One name per kind of transfer on a chain, shared by lookups, history and notifications. */
export function evmTransferTypes(chain: EvmChainName): EvmTransferTypes {
  const { nativeSymbol, tokenSegments } = EVM_CHAINS[chain];
  return {
    native: nativeSymbol,
    fungible: tokenSegments.fungible.toUpperCase(),
    nft: tokenSegments.nft.toUpperCase(),
  };
}

/** Public default endpoints per network, in the shape `ChainFamily.defaults` takes. */
export function evmDefaultEndpoints(chain: EvmChainName): Record<Network, NodeEndpointConfig[]> {
  const { networks } = EVM_CHAINS[chain];
  return { mainnet: networks.mainnet.endpoints, testnet: networks.testnet.endpoints };
}
