/**
 * Gas prices for a new transaction: the chain's defaults (EIP-1559 from eth_feeHistory, or legacy
 * eth_gasPrice on BSC) merged with whatever the caller fixed. All values are wei, as bigint.
 */
import type { Hex } from 'viem';
import type { EvmChainConfig, EvmNetworkConfig } from './chain-file.ts';
import { EvmInputError, EvmInvalidResponseError } from './errors.ts';
import { type EvmRpc, JsonRpcError } from './rpc.ts';

export type EvmFees =
  | { type: 'legacy'; gasPrice: bigint }
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** Fee fields a caller may fix; the API names them so (`gasprice` is lower case there). */
export interface FeeOverrides {
  gasprice?: bigint | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
}

/** The next block's base fee and a tip that gets a transaction in soon. */
export interface FeeMarket {
  baseFeePerGas: bigint;
  priorityFeePerGas: bigint;
}

/** Blocks of history the tip is taken from; ten covers a burst without lagging the market much. */
const HISTORY_BLOCKS = 10;
/** Concurrent sends share one fee lookup for this long: a block or less on every chain here. */
const MARKET_CACHE_MS = 2_000;

export class EvmFeeOracle {
  readonly #rpc: EvmRpc;
  readonly #chain: EvmChainConfig;
  readonly #network: EvmNetworkConfig;
  #market: { value: Promise<FeeMarket>; expires: number } | null = null;

  constructor(rpc: EvmRpc, chain: EvmChainConfig, network: EvmNetworkConfig) {
    this.#rpc = rpc;
    this.#chain = chain;
    this.#network = network;
  }

  async gasPrice(): Promise<bigint> {
    return quantity(await this.#rpc.request<Hex>('eth_gasPrice'), 'eth_gasPrice');
  }

  /** Fee market of the next block, cached briefly; a failed lookup is not cached. */
  market(): Promise<FeeMarket> {
    const now = Date.now();
    if (this.#market && this.#market.expires > now) return this.#market.value;
    const value = this.#lookupMarket();
    this.#market = { value, expires: now + MARKET_CACHE_MS };
    value.catch(() => {
      if (this.#market?.value === value) this.#market = null;
    });
    return value;
  }

  /** The chain's default fees for a transaction sent now. */
  async defaults(): Promise<EvmFees> {
    return this.resolve({});
  }

  /**
   * Caller's fees where given, defaults elsewhere. `maxFeePerGas`/`maxPriorityFeePerGas` make a type-2
   * transaction (BSC accepts those too since BEP-226); `gasprice` alone makes a legacy one.
   */
  async resolve(overrides: FeeOverrides): Promise<EvmFees> {
    const { gasprice, maxFeePerGas, maxPriorityFeePerGas } = overrides;
    const dynamic = maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined;
    if (gasprice !== undefined && dynamic) {
      throw new EvmInputError('gasprice cannot be combined with maxFeePerGas or maxPriorityFeePerGas');
    }
    if (gasprice !== undefined) return { type: 'legacy', gasPrice: nonNegative(gasprice, 'gasprice') };
    if (!dynamic && this.#chain.feeModel === 'legacy')
      return { type: 'legacy', gasPrice: await this.gasPrice() };

    if (maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined) {
      return eip1559(
        nonNegative(maxFeePerGas, 'maxFeePerGas'),
        nonNegative(maxPriorityFeePerGas, 'maxPriorityFeePerGas'),
      );
    }
    const market = await this.market();
    if (maxFeePerGas !== undefined) {
      const cap = nonNegative(maxFeePerGas, 'maxFeePerGas');
      return eip1559(cap, smaller(market.priorityFeePerGas, cap));
    }
    if (maxPriorityFeePerGas !== undefined) {
      const tip = nonNegative(maxPriorityFeePerGas, 'maxPriorityFeePerGas');
      return eip1559(feeCap(market.baseFeePerGas, tip), tip);
    }
    return eip1559(feeCap(market.baseFeePerGas, market.priorityFeePerGas), market.priorityFeePerGas);
  }

  async #lookupMarket(): Promise<FeeMarket> {
    let baseFeePerGas: bigint;
    let tip: bigint | null;
    try {
      const history = await this.#rpc.request<FeeHistory>('eth_feeHistory', [
        `0x${HISTORY_BLOCKS.toString(16)}`,
        'latest',
        [50],
      ]);
      ({ baseFeePerGas, tip } = readFeeHistory(history));
    } catch (error) {
      // Nodes without eth_feeHistory: the latest block's base fee, and the node's tip suggestion.
      if (!(error instanceof JsonRpcError)) throw error;
      const block = await this.#rpc.request<{ baseFeePerGas?: Hex } | null>('eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      if (!block?.baseFeePerGas)
        throw new EvmInvalidResponseError(`${this.#network.name} node reports no base fee`);
      baseFeePerGas = quantity(block.baseFeePerGas, 'baseFeePerGas');
      tip = null;
    }
    if (this.#chain.priorityFee === 'none') return { baseFeePerGas, priorityFeePerGas: 0n };
    tip ??= await this.#suggestedTip();
    const floor = this.#network.minPriorityFeeWei;
    return { baseFeePerGas, priorityFeePerGas: tip > floor ? tip : floor };
  }

  async #suggestedTip(): Promise<bigint> {
    try {
      return quantity(await this.#rpc.request<Hex>('eth_maxPriorityFeePerGas'), 'eth_maxPriorityFeePerGas');
    } catch (error) {
      if (error instanceof JsonRpcError) return 0n;
      throw error;
    }
  }
}

interface FeeHistory {
  baseFeePerGas?: Hex[];
  gasUsedRatio?: number[];
  reward?: Hex[][];
}

/**
 * The next block's base fee (the last entry of baseFeePerGas) and the median of the recent blocks'
 * 50th-percentile tips, empty blocks left out (their "reward" is 0 and says nothing). Null tip: no
 * block had transactions.
 */
export function readFeeHistory(history: FeeHistory): { baseFeePerGas: bigint; tip: bigint | null } {
  const bases = history?.baseFeePerGas;
  const next = Array.isArray(bases) ? bases.at(-1) : undefined;
  if (typeof next !== 'string')
    throw new EvmInvalidResponseError('eth_feeHistory answer has no baseFeePerGas');
  const tips: bigint[] = [];
  (history.reward ?? []).forEach((rewards, i) => {
    const used = history.gasUsedRatio?.[i] ?? 0;
    const reward = rewards?.[0];
    if (used > 0 && typeof reward === 'string') tips.push(quantity(reward, 'reward'));
  });
  tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const tip = tips.length === 0 ? null : tips[Math.floor(tips.length / 2)]!;
  return { baseFeePerGas: quantity(next, 'baseFeePerGas'), tip };
}

/** Room for the base fee to double (six full blocks in a row) before the transaction stops fitting. */
export function feeCap(baseFeePerGas: bigint, tip: bigint): bigint {
  return 2n * baseFeePerGas + tip;
}

function eip1559(maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): EvmFees {
  if (maxPriorityFeePerGas > maxFeePerGas) {
    throw new EvmInputError('maxPriorityFeePerGas must not be greater than maxFeePerGas');
  }
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
}

/** Math.min does not take bigints. */
function smaller(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function nonNegative(value: bigint, field: string): bigint {
  if (typeof value !== 'bigint' || value < 0n)
    throw new EvmInputError(`${field} must be a whole number of wei`);
  return value;
}

export function quantity(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    throw new EvmInvalidResponseError(`node sent an invalid quantity for ${what}`);
  }
  return BigInt(value);
}
