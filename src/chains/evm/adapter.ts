/**
 * EvmAdapter: the one object routes and services use for an EVM chain (Ethereum, BSC, Polygon,
 * Arbitrum) on one network. It composes addresses and keys, JSON-RPC reads, token calls, fees, building,
 * local signing and broadcasting; every node call goes through one NodeClient (timeouts, retries,
 * failover across the configured endpoints).
 */
import type { Address, Hex } from 'viem';
import type { NodeEndpointConfig } from '../../config.ts';
import type { AdapterContext, AdapterFactory } from '../adapter-context.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import type { BlockFollower } from '../follower.ts';
import { NodeClient } from '../node-client.ts';
import type { ChainName, Network } from '../types.ts';
import { ERC20_ABI, ERC721_ABI } from './abi.ts';
import { EvmBlockReader } from './block-transfers.ts';
import type { EvmChainConfig, EvmNetworkConfig } from './chain-file.ts';
import { evmChain } from './chains.ts';
import {
  EvmChainMismatchError,
  EvmContractError,
  EvmInputError,
  EvmInvalidResponseError,
  EvmRevertError,
  EvmTokenTransferError,
} from './errors.ts';
import { EvmFeeOracle, type EvmFees, type FeeOverrides, quantity } from './fees.ts';
import { isHex } from './hex.ts';
import { checksumAddress, type EvmKeyPair, evmKeyFromPrivate, generateEvmKey, isEvmAddress } from './keys.ts';
import { evmNewHeads } from './new-heads.ts';
import { classifyRpcError, translateNodeError } from './node-errors.ts';
import { identifyEvmChain, nodeChainId } from './probe.ts';
import { EvmRpc, JsonRpcError } from './rpc.ts';
import { type Erc20Info, EvmTokenReader } from './tokens.ts';
import {
  checkNonce,
  type SignedEvmTransaction,
  signEvmTransaction,
  transactionHash,
  type UnsignedEvmTransaction,
  unsignedTransaction,
} from './transactions.ts';
import { viemUtils } from './viem.ts';

/** Raw JSON-RPC objects (blocks, transactions, receipts) exactly as the node sent them. */
export type RpcObject = Record<string, unknown>;

/** What a caller may fix on a transaction; anything left out gets the chain's default. */
export interface EvmTxOverrides extends FeeOverrides {
  gas?: bigint | undefined;
  nonce?: number | bigint | undefined;
  /** Native transfer: the call data. Token transfer: appended after the encoded call (a memo). */
  data?: Hex | undefined;
}

export interface EvmAdapterOptions {
  chain: ChainName;
  network: Network;
  endpoints: NodeEndpointConfig[];
  timeoutMs?: number;
  retries?: number;
  onAttemptFailed?: (endpoint: string) => void;
  backoffBaseMs?: number;
  cooldownMs?: number;
  /** Another chain id than the public network's (a devnet); checkNode compares against it. */
  chainId?: number;
  /** The node's WebSocket endpoint: the watcher hears of new blocks by `eth_subscribe` (new-heads.ts). */
  wsUrl?: string;
}

/** 21000: a plain value transfer to an account without code costs exactly this, never more. */
const TRANSFER_GAS = 21_000n;

export class EvmAdapter implements ChainAdapter {
  readonly chain: ChainName;
  readonly network: Network;
  readonly nativeSymbol: string;
  readonly nativeDecimals = 18;
  readonly chainId: number;
  readonly config: EvmChainConfig;
  /** Reads blocks with their successful transfers for the webhook watcher (block-transfers.ts). */
  readonly follower: BlockFollower;

  readonly #client: NodeClient;
  readonly #rpc: EvmRpc;
  readonly #tokens: EvmTokenReader;
  readonly #fees: EvmFeeOracle;
  /** Contracts whose Transfer logs were seen but that do not answer decimals(): raw units (0). */
  readonly #noDecimals = new Set<string>();

  constructor(options: EvmAdapterOptions) {
    this.chain = options.chain;
    this.network = options.network;
    this.config = evmChain(options.chain);
    const networkConfig: EvmNetworkConfig = {
      ...this.config.networks[options.network],
      ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
    };
    this.chainId = networkConfig.chainId;
    this.nativeSymbol = this.config.nativeSymbol;
    this.#client = new NodeClient({
      chain: options.chain,
      network: options.network,
      endpoints: options.endpoints,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      onAttemptFailed: options.onAttemptFailed,
      backoffBaseMs: options.backoffBaseMs,
      cooldownMs: options.cooldownMs,
    });
    this.#rpc = new EvmRpc(this.#client);
    this.#tokens = new EvmTokenReader(this.#rpc);
    this.#fees = new EvmFeeOracle(this.#rpc, this.config, networkConfig);
    const blocks = new EvmBlockReader(
      this.#rpc,
      (contract) => this.#watchedDecimals(contract),
      this.chain,
      this.network,
    );
    this.follower = {
      finality: networkConfig.finality,
      head: () => this.getBlockNumber(),
      read: (height) => blocks.read(height),
      ...(options.wsUrl === undefined ? {} : { heads: evmNewHeads(options.wsUrl, this.chainId) }),
    };
  }

  /** JSON-RPC over this adapter's NodeClient; `rpc.transport()` makes it a viem transport. */
  get rpc(): EvmRpc {
    return this.#rpc;
  }

  // Addresses and keys.

  isAddress(address: string): boolean {
    return isEvmAddress(address);
  }

  checksum(address: string): Address {
    return checksumAddress(address);
  }

  generateKey(): EvmKeyPair {
    return generateEvmKey();
  }

  keyFromPrivate(privateKeyHex: string): EvmKeyPair {
    return evmKeyFromPrivate(privateKeyHex);
  }

  // Chain, blocks and transactions.

  getChainId(): Promise<number> {
    return nodeChainId(this.#rpc);
  }

  async checkNode(): Promise<void> {
    const identity = await identifyEvmChain(this.#rpc, this.chainId);
    if (!identity.matches)
      throw new EvmChainMismatchError(this.chain, this.network, this.chainId, identity.foundChainId);
  }

  async getBlockNumber(): Promise<bigint> {
    return quantity(await this.#rpc.request('eth_blockNumber'), 'eth_blockNumber');
  }

  /** Raw block by number (decimal or 0x), tag, or 32-byte hash; null when the node has no such block. */
  async getBlock(
    numberOrHash: string | number | bigint,
    includeTransactions = false,
  ): Promise<RpcObject | null> {
    const text = String(numberOrHash).trim();
    if (/^0x[0-9a-fA-F]{64}$/.test(text)) {
      return this.#object(await this.#call('eth_getBlockByHash', [text.toLowerCase(), includeTransactions]));
    }
    let tag: string;
    if (/^[0-9]{1,20}$/.test(text)) tag = `0x${BigInt(text).toString(16)}`;
    else if (/^0x[0-9a-fA-F]{1,16}$/.test(text)) tag = `0x${BigInt(text).toString(16)}`;
    else if (['latest', 'earliest', 'pending', 'safe', 'finalized'].includes(text)) tag = text;
    else throw new EvmInputError('block must be a block number or a 32-byte hex block hash');
    return this.#object(await this.#call('eth_getBlockByNumber', [tag, includeTransactions]));
  }

  async getTransaction(hash: string): Promise<RpcObject | null> {
    return this.#object(await this.#call('eth_getTransactionByHash', [hashParam(hash)]));
  }

  async getReceipt(hash: string): Promise<RpcObject | null> {
    return this.#object(await this.#call('eth_getTransactionReceipt', [hashParam(hash)]));
  }

  // Accounts and tokens.

  async getBalance(address: string): Promise<bigint> {
    return quantity(
      await this.#call('eth_getBalance', [checksumAddress(address), 'latest']),
      'eth_getBalance',
    );
  }

  /** The account's runtime code; `0x` when it has none (an EOA, or nothing deployed there). */
  async getCode(address: string): Promise<Hex> {
    const code = await this.#call('eth_getCode', [checksumAddress(address), 'latest']);
    if (typeof code !== 'string' || !isHex(code)) {
      throw new EvmInvalidResponseError(`${this.chain} ${this.network} node sent malformed code`);
    }
    return code;
  }

  /**
   * A call to an address without code succeeds and moves nothing, so a token transfer to one would be
   * mined as a success.
   *
   * @throws EvmTokenTransferError (422 `not a token contract`) when `contract` has no code.
   */
  async requireTokenContract(contract: string): Promise<void> {
    if (/^0x0*$/.test(await this.getCode(contract))) {
      const address = checksumAddress(contract);
      throw new EvmTokenTransferError(address, `not a token contract: ${address} has no code`);
    }
  }

  /** Next nonce of `address`: 'pending' counts transactions in the node's pool, 'latest' only mined ones. */
  async getTransactionCount(address: string, block: 'pending' | 'latest' = 'pending'): Promise<number> {
    const count = await this.#call('eth_getTransactionCount', [checksumAddress(address), block]);
    return Number(quantity(count, 'eth_getTransactionCount'));
  }

  getErc20Balance(address: string, contract: string): Promise<{ balance: bigint; decimals: number }> {
    return this.#tokens.erc20Balance(address, contract);
  }

  getErc20Decimals(contract: string): Promise<number> {
    return this.#tokens.erc20Decimals(contract);
  }

  /** @throws EvmContractError when the address holds no ERC20 contract. */
  getErc20Info(contract: string): Promise<Erc20Info> {
    return this.#tokens.erc20Info(contract);
  }

  nftOwner(contract: string, tokenId: bigint): Promise<Address> {
    return this.#tokens.nftOwner(contract, tokenId);
  }

  nftUri(contract: string, tokenId: bigint): Promise<string> {
    return this.#tokens.nftUri(contract, tokenId);
  }

  // Fees.

  getGasPrice(): Promise<bigint> {
    return this.#fees.gasPrice();
  }

  /** The fees a transaction sent now gets by default on this chain. */
  getFeeDefaults(): Promise<EvmFees> {
    return this.#fees.defaults();
  }

  /**
   * Gas the call needs, asked without a price: given one, geth caps the estimate by what the sender can
   * pay and refuses with `insufficient funds for transfer` or `gas required exceeds allowance`, texts
   * without the figures. Whether the sender can pay is the node's answer to the broadcast, in its words.
   */
  async estimateGas(call: { from: string; to: string; value?: bigint; data?: Hex }): Promise<bigint> {
    const request: Record<string, string> = {
      from: checksumAddress(call.from),
      to: checksumAddress(call.to),
      value: `0x${(call.value ?? 0n).toString(16)}`,
      data: call.data ?? '0x',
    };
    return quantity(await this.#call('eth_estimateGas', [request]), 'eth_estimateGas');
  }

  // Unsigned transactions.

  buildTransfer(
    from: string,
    to: string,
    wei: bigint,
    overrides: EvmTxOverrides = {},
  ): Promise<UnsignedEvmTransaction> {
    if (typeof wei !== 'bigint' || wei < 0n) throw new EvmInputError('amount must be a whole number of wei');
    return this.#build(from, to, wei, overrides.data ?? '0x', overrides);
  }

  /** ERC20 `transfer`; refused before anything is signed when it cannot work (see #refuseFailingTokenCall). */
  async buildErc20Transfer(
    from: string,
    to: string,
    contract: string,
    units: bigint,
    overrides: EvmTxOverrides = {},
  ): Promise<UnsignedEvmTransaction> {
    if (typeof units !== 'bigint' || units < 0n)
      throw new EvmInputError('amount must be a whole number of token units');
    const { encodeFunctionData } = await viemUtils();
    const call = encodeFunctionData({
      abi: ERC20_ABI,
      functionName: 'transfer',
      args: [checksumAddress(to), units],
    });
    const data = appendData(call, overrides.data);
    await this.#refuseFailingTokenCall(from, contract, data, {
      returnsBool: true,
      explainRevert: async () => {
        const { balance } = await this.#tokens.erc20Balance(from, contract);
        return balance < units ? 'insufficient token balance' : null;
      },
    });
    return this.#build(from, contract, 0n, data, overrides);
  }

  /**
   * safeTransferFrom: a receiving contract that cannot hold NFTs makes it revert instead of losing the
   * token. Refused before anything is signed when it cannot work (see #refuseFailingTokenCall).
   */
  async buildErc721Transfer(
    from: string,
    to: string,
    contract: string,
    tokenId: bigint,
    overrides: EvmTxOverrides = {},
  ): Promise<UnsignedEvmTransaction> {
    if (typeof tokenId !== 'bigint' || tokenId < 0n)
      throw new EvmInputError('tokenId must be a whole number');
    const { encodeFunctionData } = await viemUtils();
    const call = encodeFunctionData({
      abi: ERC721_ABI,
      functionName: 'safeTransferFrom',
      args: [checksumAddress(from), checksumAddress(to), tokenId],
    });
    const data = appendData(call, overrides.data);
    await this.#refuseFailingTokenCall(from, contract, data, {
      returnsBool: false,
      explainRevert: async () => {
        const owner = await this.#tokens.nftOwner(contract, tokenId);
        return owner === checksumAddress(from) ? null : `not the owner of token ${tokenId}`;
      },
    });
    return this.#build(from, contract, 0n, data, overrides);
  }

  // Signing and broadcasting.

  /** Pure and local. @throws EvmInputError when the key does not belong to `tx.from`. */
  async sign(tx: UnsignedEvmTransaction, privateKeyHex: string): Promise<SignedEvmTransaction> {
    if (tx.chainId !== this.chainId) {
      throw new EvmInputError(`transaction is for chain id ${tx.chainId}, not ${this.chainId}`);
    }
    return signEvmTransaction(tx, privateKeyHex);
  }

  /**
   * Sends a signed transaction; resolves to its hash. Sending one the node already has (in its pool or
   * mined) is a success: a retry after a lost answer must not look like a failure.
   *
   * @throws EvmInsufficientFundsError, EvmNonceError, EvmRevertError, EvmNodeError when the node refuses.
   */
  async broadcast(raw: string): Promise<Hex> {
    if (typeof raw !== 'string' || !isHex(raw) || raw.length < 4 || raw.length % 2 !== 0) {
      throw new EvmInputError('signed transaction must be 0x-prefixed hex');
    }
    const hash = transactionHash(raw);
    try {
      await this.#rpc.request('eth_sendRawTransaction', [raw]);
      return hash;
    } catch (error) {
      if (error instanceof JsonRpcError) {
        const kind = classifyRpcError(error);
        if (kind === 'already_known') return hash;
        // Anvil and some clients answer a re-send of a mined transaction with "nonce too low".
        if ((kind === 'nonce_too_low' || kind === 'underpriced') && (await this.#knows(hash))) return hash;
      }
      throw await translateNodeError(error);
    }
  }

  // Lifecycle.

  disableEndpoint(endpoint: string): number {
    return this.#client.disableEndpoint(endpoint);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  async #build(
    fromInput: string,
    toInput: string,
    value: bigint,
    data: Hex,
    overrides: EvmTxOverrides,
  ): Promise<UnsignedEvmTransaction> {
    const from = checksumAddress(fromInput);
    const to = checksumAddress(toInput);
    if (!isHex(data) || data.length % 2 !== 0) throw new EvmInputError('data must be 0x-prefixed hex');
    const [fees, nonce] = await Promise.all([
      this.#fees.resolve(overrides),
      overrides.nonce === undefined ? this.getTransactionCount(from, 'pending') : checkNonce(overrides.nonce),
    ]);
    let gas: bigint;
    if (overrides.gas !== undefined) {
      if (typeof overrides.gas !== 'bigint' || overrides.gas < TRANSFER_GAS) {
        throw new EvmInputError(`gas must be a whole number of at least ${TRANSFER_GAS}`);
      }
      gas = overrides.gas;
    } else {
      gas = withMargin(await this.estimateGas({ from, to, value, data }), data);
    }
    return unsignedTransaction({ chainId: this.chainId, from, nonce, to, value, data, gas, ...fees });
  }

  /**
   * Refuses a token call that cannot work before anything is signed, so it costs no nonce, no fee and no
   * quota: no code at `contract`, or the exact call from `from` (eth_call) reverts, or returns false when
   * `returnsBool` (ERC20 `transfer`; tokens that return nothing answer `0x`). A revert with a reason is
   * the node's EvmRevertError; without one, `explainRevert` says why (balance, ownership) where it can.
   */
  async #refuseFailingTokenCall(
    from: string,
    contract: string,
    data: Hex,
    check: { returnsBool: boolean; explainRevert: () => Promise<string | null> },
  ): Promise<void> {
    await this.requireTokenContract(contract);
    const call = { from: checksumAddress(from), to: checksumAddress(contract), data };
    let result: unknown;
    try {
      result = await this.#rpc.request('eth_call', [call, 'latest']);
    } catch (error) {
      const translated = await translateNodeError(error);
      if (!(translated instanceof EvmRevertError) || translated.reason !== null) throw translated;
      const why = await check.explainRevert().catch(() => null);
      throw new EvmTokenTransferError(call.to, why ?? 'token transfer would revert (no reason given)');
    }
    if (check.returnsBool && isFalseWord(result))
      throw new EvmTokenTransferError(call.to, 'token transfer returned false');
  }

  /** ERC20 decimals for transfers found in blocks (cached by the token reader); 0 for a non-answering contract. */
  async #watchedDecimals(contract: string): Promise<number> {
    if (this.#noDecimals.has(contract)) return 0;
    try {
      return await this.#tokens.erc20Decimals(contract);
    } catch (error) {
      if (!(error instanceof EvmContractError)) throw error;
      if (this.#noDecimals.size >= 10_000) this.#noDecimals.clear();
      this.#noDecimals.add(contract);
      return 0;
    }
  }

  async #knows(hash: Hex): Promise<boolean> {
    try {
      return (await this.getTransaction(hash)) !== null;
    } catch {
      return false;
    }
  }

  /** A node call whose JSON-RPC errors become the adapter's typed errors. */
  async #call(method: string, params: unknown[]): Promise<unknown> {
    try {
      return await this.#rpc.request(method, params);
    } catch (error) {
      throw await translateNodeError(error);
    }
  }

  #object(value: unknown): RpcObject | null {
    if (value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new EvmInvalidResponseError(`${this.chain} ${this.network} node sent a malformed object`);
    }
    return value as RpcObject;
  }
}

export const evmAdapterFactory = (chain: ChainName): AdapterFactory => {
  return (context: AdapterContext) =>
    new EvmAdapter({
      chain,
      network: context.network,
      endpoints: context.endpoints,
      timeoutMs: context.timeoutMs,
      retries: context.retries,
      onAttemptFailed: context.onAttemptFailed,
      wsUrl: context.wsUrl,
    });
};

/**
 * Headroom over eth_estimateGas for anything but a plain transfer: state can change between estimate and
 * inclusion (a first transfer to a new holder, Arbitrum's L1 data price), and unused gas is refunded.
 */
function withMargin(estimate: bigint, data: Hex): bigint {
  if (estimate === TRANSFER_GAS && data === '0x') return estimate;
  return (estimate * 12n + 9n) / 10n;
}

/** A 32-byte zero word: what a bool `false` return looks like. */
function isFalseWord(result: unknown): boolean {
  return typeof result === 'string' && /^0x0{64}$/.test(result);
}

function appendData(call: Hex, extra: Hex | undefined): Hex {
  if (extra === undefined || extra === '0x') return call;
  if (!isHex(extra) || extra.length % 2 !== 0) throw new EvmInputError('data must be 0x-prefixed hex');
  return `${call}${extra.slice(2)}`;
}

function hashParam(hash: string): Hex {
  const text = String(hash).trim();
  const hex = text.startsWith('0x') ? text : `0x${text}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new EvmInputError('transaction hash must be 32 bytes of hex');
  return hex.toLowerCase() as Hex;
}
