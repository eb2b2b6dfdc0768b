/**
 * TronAdapter: the one object routes and services use for Tron. It composes the codec, node calls,
 * builders, signer, token reads and fee pre-flight; every node call goes through one NodeClient built
 * from the adapter context (timeouts, retries, failover across the configured endpoints).
 */
import type { NodeEndpointConfig } from '../../config.ts';
import { type AdapterConnection, adapterNodeClient, connectionOf } from '../adapter-connection.ts';
import type { AdapterContext, AdapterFactory } from '../adapter-context.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import type { BlockFollower } from '../follower.ts';
import type { NodeClient } from '../node-client.ts';
import type { Network } from '../types.ts';
import { isTronAddress, toBase58Address, toHexAddress } from './address.ts';
import { readTronBlock, type TokenDecimals } from './block-transfers.ts';
import { TronContractError, TronInputError, TronInvalidResponseError } from './errors.ts';
import { type ContractCallArgs, TronFeeEstimator } from './fee-estimator.ts';
import { TRON_BLOCK_TIME_MS, TRON_FINALITY } from './finality.ts';
import { TronHeadReader } from './head.ts';
import { generateTronKey, type TronKeyPair, tronKeyFromPrivate } from './keys.ts';
import { type NodeJson, TronNodeApi } from './node-api.ts';
import { readBroadcastResponse } from './node-messages.ts';
import { type FeePrices, int, normalizeAccountResources, preflightProblems } from './resources.ts';
import { signTronTransaction, txidOf } from './signing.ts';
import { type Trc10Info, type Trc20Info, TronTokenReader } from './tokens.ts';
import { TronTransactionBuilder } from './transaction-builder.ts';
import type {
  BroadcastableTronTransaction,
  SignedTronTransaction,
  TronAccountResources,
  TronResource,
  TronResourceEstimate,
  TronResourceTotals,
  TronTransaction,
} from './types.ts';

/** Public TronGrid endpoints; an API key, when configured, arrives as a TRON-PRO-API-KEY header. */
export const TRON_DEFAULT_ENDPOINTS: Record<Network, NodeEndpointConfig[]> = {
  mainnet: [{ url: 'https://api.trongrid.io', headers: {} }],
  testnet: [{ url: 'https://nile.trongrid.io', headers: {} }],
};

/** Energy and bandwidth prices change by committee proposal only, so a few minutes of caching is safe. */
const PRICE_CACHE_MS = 5 * 60_000;
/** Node JSON the reads pass on: int64s beyond 2^53 read exactly, as bigint. */
const EXACT = { lossless: true } as const;

export interface ChainParameter {
  key: string;
  value?: number;
}

export type TronAdapterOptions = AdapterConnection;

/** The adapter's build methods hand their arguments to the transaction builder as they are. */
type BuilderArgs<K extends keyof TronTransactionBuilder> = Parameters<TronTransactionBuilder[K]>;

export class TronAdapter implements ChainAdapter {
  readonly chain = 'tron' as const;
  readonly network: Network;
  readonly nativeSymbol = 'TRX';
  readonly nativeDecimals = 6;
  /** Reads blocks with their successful transfers for the webhook watcher (block-transfers.ts). */
  readonly follower: BlockFollower;

  readonly #client: NodeClient;
  readonly #node: TronNodeApi;
  readonly #head: TronHeadReader;
  readonly #builder: TronTransactionBuilder;
  readonly #tokens: TronTokenReader;
  readonly #estimator: TronFeeEstimator;
  #prices: { value: Promise<FeePrices>; expires: number } | null = null;

  constructor(options: TronAdapterOptions) {
    this.network = options.network;
    this.#client = adapterNodeClient('tron', options);
    this.#node = new TronNodeApi(this.#client);
    this.#head = new TronHeadReader(this.#node);
    this.#builder = new TronTransactionBuilder(this.#node);
    this.#tokens = new TronTokenReader(this.#node);
    this.#estimator = new TronFeeEstimator({
      node: this.#node,
      prices: () => this.#feePrices(),
      resources: (address) => this.getAccountResources(address),
    });
    this.follower = {
      finality: TRON_FINALITY[options.network],
      blockTimeMs: TRON_BLOCK_TIME_MS,
      head: () => this.getBlockNumber(),
      read: (height) => readTronBlock(this.#node, this.#watchedTokens, this.network, height),
    };
  }

  // Addresses and keys.

  isAddress(address: string): boolean {
    return isTronAddress(address);
  }

  toBase58(address: string): string {
    return toBase58Address(address);
  }

  toHex(address: string): string {
    return toHexAddress(address);
  }

  generateKey(): TronKeyPair {
    return generateTronKey();
  }

  keyFromPrivate(privateKeyHex: string): TronKeyPair {
    return tronKeyFromPrivate(privateKeyHex);
  }

  // Blocks and transactions.

  async getBlockNumber(): Promise<bigint> {
    return this.#head.read(false);
  }

  /** Number of the latest solidified (irreversible) block. */
  async getSolidBlockNumber(): Promise<bigint> {
    return this.#head.read(true);
  }

  /**
   * Raw node block JSON by number or 64-hex block id; null when the node has no such block. Like the
   * transaction and its info below, it is passed on to callers: int64s beyond 2^53 are kept as bigint.
   */
  async getBlock(numberOrId: string): Promise<NodeJson | null> {
    const text = String(numberOrId).trim();
    let block: NodeJson;
    if (/^[0-9]{1,16}$/.test(text)) {
      block = await this.#node.getBlockByNum(BigInt(text), EXACT);
    } else if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) {
      block = await this.#node.getBlockById(text.replace(/^0x/, '').toLowerCase(), EXACT);
    } else {
      throw new TronInputError('block must be a block number or a 64-character hex block id');
    }
    return emptyToNull(block);
  }

  /** Decimals for transfers found in blocks: a contract that is not a real TRC20 reports raw units (0). */
  readonly #watchedTokens: TokenDecimals = {
    trc20Decimals: (contract) =>
      this.#tokens.trc20Decimals(contract).catch((error: unknown) => {
        if (error instanceof TronContractError) return 0;
        throw error;
      }),
    trc10Precision: async (tokenId) => {
      let precision = this.#trc10Precision.get(tokenId);
      if (precision === undefined) {
        precision = await this.#tokens.trc10Info(tokenId).then(
          (info) => info.precision,
          (error: unknown) => {
            if (error instanceof TronContractError) return 0;
            throw error;
          },
        );
        this.#trc10Precision.set(tokenId, precision);
      }
      return precision;
    },
  };
  readonly #trc10Precision = new Map<string, number>();

  async getTransaction(txid: string): Promise<NodeJson | null> {
    return emptyToNull(await this.#node.getTransactionById(txidParam(txid), EXACT));
  }

  async getTransactionInfo(txid: string): Promise<NodeJson | null> {
    return emptyToNull(await this.#node.getTransactionInfoById(txidParam(txid), EXACT));
  }

  // Accounts and tokens.

  /**
   * Raw getaccount JSON, or null for an account the chain has never seen. Parsed like any JSON client
   * does (int64 beyond 2^53 round); getBalance, getTrc10Balance and getAccountResources are exact.
   */
  async getAccount(address: string): Promise<NodeJson | null> {
    return emptyToNull(await this.#node.call('getaccount', { address: toHexAddress(address) }));
  }

  /** TRX balance in sun (0 for an unknown account). */
  async getBalance(address: string): Promise<bigint> {
    const account = await this.#node.getAccount(toHexAddress(address));
    return int(account['balance']);
  }

  getTrc20Balance(address: string, contract: string): Promise<{ balance: bigint; decimals: number }> {
    return this.#tokens.trc20Balance(address, contract);
  }

  getTrc20Decimals(contract: string): Promise<number> {
    return this.#tokens.trc20Decimals(contract);
  }

  /** @throws TronContractError when the contract does not exist or does not answer. */
  getTrc20Info(contract: string): Promise<Trc20Info> {
    return this.#tokens.trc20Info(contract);
  }

  getTrc10Balance(address: string, tokenId: string): Promise<bigint> {
    return this.#tokens.trc10Balance(address, tokenId);
  }

  /** @throws TronContractError when no TRC10 token has this id. */
  getTrc10Info(tokenId: string): Promise<Trc10Info> {
    return this.#tokens.trc10Info(tokenId);
  }

  async getChainParameters(): Promise<{ chainParameter: ChainParameter[] }> {
    const body = await this.#node.getChainParameters();
    const list = body['chainParameter'];
    if (!Array.isArray(list))
      throw new TronInvalidResponseError('Tron node sent chain parameters without a list');
    return { chainParameter: list as ChainParameter[] };
  }

  async getAccountResources(address: string): Promise<TronAccountResources> {
    const hex = toHexAddress(address);
    const [account, resource] = await Promise.all([
      this.#node.getAccount(hex),
      this.#node.getAccountResource(hex),
    ]);
    return normalizeAccountResources(hex, account, resource);
  }

  /** The chain's resource totals (getaccountresource of any existing account): what one staked TRX yields. */
  async getResourceTotals(address: string): Promise<TronResourceTotals> {
    const body = await this.#node.getAccountResource(toHexAddress(address));
    return {
      netLimit: int(body['TotalNetLimit']),
      netWeight: int(body['TotalNetWeight']),
      energyLimit: int(body['TotalEnergyLimit']),
      energyWeight: int(body['TotalEnergyWeight']),
    };
  }

  /** The most sun of staked `resource` `owner` can delegate now (0 for an unknown account). */
  async getDelegatableSun(owner: string, resource: TronResource): Promise<bigint> {
    return int((await this.#node.getCanDelegatedMaxSize(toHexAddress(owner), resource))['max_size']);
  }

  /** Sun of stake `from` delegates to `to` without a lock, per resource (what it may take back now). */
  async getUnlockedDelegation(from: string, to: string): Promise<Record<TronResource, bigint>> {
    const body = await this.#node.getDelegatedResourceV2(toHexAddress(from), toHexAddress(to));
    const held = { BANDWIDTH: 0n, ENERGY: 0n };
    const entries = Array.isArray(body['delegatedResource']) ? (body['delegatedResource'] as NodeJson[]) : [];
    for (const entry of entries) {
      // A locked delegation carries its expiry; only an unlocked one can always be taken back.
      if (entry['expire_time_for_bandwidth'] === undefined)
        held.BANDWIDTH += int(entry['frozen_balance_for_bandwidth']);
      if (entry['expire_time_for_energy'] === undefined)
        held.ENERGY += int(entry['frozen_balance_for_energy']);
    }
    return held;
  }

  // Unsigned transactions, built by the node and verified against the request.

  buildAccountCreate(...args: BuilderArgs<'accountCreate'>): Promise<TronTransaction> {
    return this.#builder.accountCreate(...args);
  }

  buildTrxTransfer(...args: BuilderArgs<'trxTransfer'>): Promise<TronTransaction> {
    return this.#builder.trxTransfer(...args);
  }

  buildTrc20Transfer(...args: BuilderArgs<'trc20Transfer'>): Promise<TronTransaction> {
    return this.#builder.trc20Transfer(...args);
  }

  buildTrc721Transfer(...args: BuilderArgs<'trc721Transfer'>): Promise<TronTransaction> {
    return this.#builder.trc721Transfer(...args);
  }

  buildTrc10Transfer(...args: BuilderArgs<'trc10Transfer'>): Promise<TronTransaction> {
    return this.#builder.trc10Transfer(...args);
  }

  buildFreeze(...args: BuilderArgs<'freeze'>): Promise<TronTransaction> {
    return this.#builder.freeze(...args);
  }

  buildUnfreeze(...args: BuilderArgs<'unfreeze'>): Promise<TronTransaction> {
    return this.#builder.unfreeze(...args);
  }

  buildDelegate(...args: BuilderArgs<'delegate'>): Promise<TronTransaction> {
    return this.#builder.delegate(...args);
  }

  buildUndelegate(...args: BuilderArgs<'undelegate'>): Promise<TronTransaction> {
    return this.#builder.undelegate(...args);
  }

  // Signing and broadcasting.

  /** Pure and local: a signed copy of `tx`. */
  sign(tx: TronTransaction, privateKeyHex: string): Promise<SignedTronTransaction> {
    return signTronTransaction(tx, privateKeyHex);
  }

  /**
   * @throws TronBroadcastError with the node's code and decoded message when it refuses the transaction.
   */
  async broadcast(signedTx: BroadcastableTronTransaction): Promise<{ txid: string }> {
    if (signedTx === null || typeof signedTx !== 'object' || typeof signedTx.raw_data !== 'object') {
      throw new TronInputError('transaction must carry raw_data');
    }
    const txid = broadcastTxid(signedTx);
    const outcome = readBroadcastResponse(await this.#node.broadcastTransaction(signedTx), txid);
    if (!outcome.ok) throw outcome.error;
    return { txid: outcome.txid };
  }

  // Resource pre-flight.

  /** Energy, bandwidth and TRX a TRC20/TRC721 call from `from` needs, against what `from` has. */
  estimateContractTransfer(
    from: string,
    input: TronTransaction | ContractCallArgs,
  ): Promise<TronResourceEstimate> {
    return this.#estimator.estimate(from, input);
  }

  /** Reasons the estimated transfer would fail or exceed `feeLimitSun`; empty when it is fine. */
  preflightProblems(estimate: TronResourceEstimate, feeLimitSun: bigint): string[] {
    return preflightProblems(estimate, feeLimitSun);
  }

  // Lifecycle.

  async checkNode(): Promise<void> {
    const block = await this.#node.getBlockByNum(0n);
    if (typeof block['blockID'] !== 'string') {
      throw new TronInvalidResponseError(`tron ${this.network} node did not return its genesis block`);
    }
  }

  disableEndpoint(endpoint: string): number {
    return this.#client.disableEndpoint(endpoint);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  #feePrices(): Promise<FeePrices> {
    const now = Date.now();
    if (this.#prices && this.#prices.expires > now) return this.#prices.value;
    const value = this.getChainParameters().then(({ chainParameter }) => {
      const param = (key: string) => int(chainParameter.find((p) => p?.key === key)?.value);
      return { energyPriceSun: param('getEnergyFee'), bandwidthPriceSun: param('getTransactionFee') };
    });
    this.#prices = { value, expires: now + PRICE_CACHE_MS };
    // A failed lookup is not cached: the next estimate asks again.
    value.catch(() => {
      if (this.#prices?.value === value) this.#prices = null;
    });
    return value;
  }
}

export const tronAdapterFactory: AdapterFactory = (context: AdapterContext) =>
  new TronAdapter(connectionOf(context));

function emptyToNull(body: NodeJson): NodeJson | null {
  return Object.keys(body).length === 0 ? null : body;
}

function txidParam(txid: string): string {
  const text = String(txid).trim().replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(text))
    throw new TronInputError('transaction id must be 64 hexadecimal characters');
  return text.toLowerCase();
}

/**
 * The id a signed transaction has on chain: the node hashes raw_data itself, and raw_data_hex gives the
 * same id for a well-formed transaction; without it, the id the transaction names.
 */
export function broadcastTxid(signedTx: BroadcastableTronTransaction): string {
  return typeof signedTx.raw_data_hex === 'string' && /^(?:[0-9a-fA-F]{2})+$/.test(signedTx.raw_data_hex)
    ? txidOf(signedTx.raw_data_hex)
    : String(signedTx.txID ?? '').toLowerCase();
}
