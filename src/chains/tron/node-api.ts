/**
 * The java-tron HTTP endpoints this adapter uses, one method each, all through one NodeClient
 * (timeouts, retries, failover). Requests always use visible=false: addresses travel as 41-hex, bytes
 * as hex, which is the node's default and what tronweb's transaction checks expect.
 */
import { parseJsonWithBigInts } from '../../json/lossless-parse.ts';
import type { NodeClient } from '../node-client.ts';
import { TronInputError, TronInvalidResponseError } from './errors.ts';
import type { BroadcastableTronTransaction, TronResource } from './types.ts';

export type NodeJson = Record<string, unknown>;

export interface CallOptions {
  /** Ask /walletsolidity/ (the solidified state) instead of /wallet/ (the head). */
  solidity?: boolean;
  /** Keep integers beyond 2^53 exact (as bigint); for balances and token amounts. */
  lossless?: boolean;
}

/**
 * The arguments of a TriggerSmartContract call as the node takes them: either function_selector +
 * parameter (the node hashes the selector) or the whole call `data`.
 */
export interface TriggerArgs {
  owner_address: string;
  contract_address: string;
  function_selector?: string;
  parameter?: string;
  data?: string;
  call_value?: number;
  fee_limit?: number;
}

export class TronNodeApi {
  constructor(readonly client: NodeClient) {}

  async call(endpoint: string, body: NodeJson = {}, options: CallOptions = {}): Promise<NodeJson> {
    const path = `/${options.solidity ? 'walletsolidity' : 'wallet'}/${endpoint}`;
    const payload = { visible: false, ...toWire(body) };
    let value: unknown;
    if (options.lossless) {
      const text = await this.client.request<string>({ method: 'POST', path, body: payload, parse: 'text' });
      try {
        value = parseJsonWithBigInts(text);
      } catch {
        throw new TronInvalidResponseError(`Tron node sent a body that is not JSON for ${endpoint}`);
      }
    } else {
      value = await this.client.postJson<unknown>(path, payload);
    }
    // java-tron answers every call with a JSON object (`{}` when nothing was found).
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new TronInvalidResponseError(
        `Tron node answered ${endpoint} with something other than an object`,
      );
    }
    return value as NodeJson;
  }

  /** The node's head and configuration, its network id among them. */
  getNodeInfo(): Promise<NodeJson> {
    return this.call('getnodeinfo');
  }

  // Blocks and transactions.
  getNowBlock(solidity = false): Promise<NodeJson> {
    return this.call('getnowblock', {}, { solidity });
  }
  /** Header only (`detail: false`): far smaller than getnowblock on a busy chain. */
  getBlockHeader(solidity = false): Promise<NodeJson> {
    return this.call('getblock', { detail: false }, { solidity });
  }
  getBlockByNum(num: bigint, options: CallOptions = {}): Promise<NodeJson> {
    return this.call('getblockbynum', { num }, options);
  }
  getBlockById(id: string, options: CallOptions = {}): Promise<NodeJson> {
    return this.call('getblockbyid', { value: id }, options);
  }
  getTransactionById(txid: string, options: CallOptions = {}): Promise<NodeJson> {
    return this.call('gettransactionbyid', { value: txid }, options);
  }
  getTransactionInfoById(txid: string, options: CallOptions = {}): Promise<NodeJson> {
    return this.call('gettransactioninfobyid', { value: txid }, options);
  }
  /** Every transaction info of a block (an array, unlike the other endpoints); [] or {} when none. */
  async getTransactionInfosByBlockNum(num: bigint): Promise<NodeJson[]> {
    const value = await this.client.postJson<unknown>('/wallet/gettransactioninfobyblocknum', {
      num: Number(num),
    });
    if (Array.isArray(value)) return value as NodeJson[];
    if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return [];
    throw new TronInvalidResponseError(
      'Tron node answered gettransactioninfobyblocknum with something other than a list',
    );
  }

  // Accounts, resources, parameters.
  getAccount(hexAddress: string): Promise<NodeJson> {
    return this.call('getaccount', { address: hexAddress }, { lossless: true });
  }
  getAccountResource(hexAddress: string): Promise<NodeJson> {
    return this.call('getaccountresource', { address: hexAddress }, { lossless: true });
  }
  getChainParameters(): Promise<NodeJson> {
    return this.call('getchainparameters');
  }
  getAssetIssueById(tokenId: string): Promise<NodeJson> {
    return this.call('getassetissuebyid', { value: tokenId }, { lossless: true });
  }

  // Smart contracts.
  triggerConstantContract(args: TriggerArgs): Promise<NodeJson> {
    return this.call('triggerconstantcontract', { ...args });
  }
  estimateEnergy(args: TriggerArgs): Promise<NodeJson> {
    return this.call('estimateenergy', { ...args });
  }
  triggerSmartContract(args: TriggerArgs): Promise<NodeJson> {
    return this.call('triggersmartcontract', { ...args });
  }

  // Builders.
  createTransaction(owner: string, to: string, amount: bigint): Promise<NodeJson> {
    return this.call('createtransaction', { owner_address: owner, to_address: to, amount });
  }
  transferAsset(owner: string, to: string, assetNameHex: string, amount: bigint): Promise<NodeJson> {
    return this.call('transferasset', {
      owner_address: owner,
      to_address: to,
      asset_name: assetNameHex,
      amount,
    });
  }
  freezeBalanceV2(owner: string, amount: bigint, resource: string): Promise<NodeJson> {
    return this.call('freezebalancev2', { owner_address: owner, frozen_balance: amount, resource });
  }
  unfreezeBalanceV2(owner: string, amount: bigint, resource: string): Promise<NodeJson> {
    return this.call('unfreezebalancev2', { owner_address: owner, unfreeze_balance: amount, resource });
  }
  delegateResource(
    owner: string,
    receiver: string,
    amount: bigint,
    resource: TronResource,
    lock: boolean,
    lockPeriod: bigint | undefined,
  ): Promise<NodeJson> {
    const body: NodeJson = {
      owner_address: owner,
      receiver_address: receiver,
      balance: amount,
      resource,
      lock,
    };
    if (lockPeriod !== undefined) body['lock_period'] = lockPeriod;
    return this.call('delegateresource', body);
  }
  undelegateResource(
    owner: string,
    receiver: string,
    amount: bigint,
    resource: TronResource,
  ): Promise<NodeJson> {
    return this.call('undelegateresource', {
      owner_address: owner,
      receiver_address: receiver,
      balance: amount,
      resource,
    });
  }

  createAccount(owner: string, account: string): Promise<NodeJson> {
    return this.call('createaccount', { owner_address: owner, account_address: account });
  }
  /** The most sun of `resource` stake `owner` can delegate now (`type` 0 bandwidth, 1 energy). */
  getCanDelegatedMaxSize(owner: string, resource: TronResource): Promise<NodeJson> {
    return this.call(
      'getcandelegatedmaxsize',
      { owner_address: owner, type: resource === 'ENERGY' ? 1 : 0 },
      { lossless: true },
    );
  }
  /** Stake 2.0 delegations from `from` to `to` (unlocked and locked). */
  getDelegatedResourceV2(from: string, to: string): Promise<NodeJson> {
    return this.call('getdelegatedresourcev2', { fromAddress: from, toAddress: to }, { lossless: true });
  }

  broadcastTransaction(tx: BroadcastableTronTransaction): Promise<NodeJson> {
    // A client-built transaction may be visible=true (base58 addresses); the node must parse it that way.
    const body: NodeJson = {
      visible: tx.visible === true,
      txID: tx.txID,
      raw_data: tx.raw_data,
      raw_data_hex: tx.raw_data_hex,
    };
    if (tx.signature) body['signature'] = tx.signature;
    return this.call('broadcasttransaction', body);
  }
}

/**
 * JSON-ready copy of a request body: bigint amounts become numbers. Every int64 the adapter sends is
 * checked to be a safe integer first (see `safeInt`), so this conversion is exact.
 */
function toWire(body: NodeJson): NodeJson {
  const out: NodeJson = {};
  for (const [key, value] of Object.entries(body)) {
    out[key] = typeof value === 'bigint' ? safeInt(value, key) : value;
  }
  return out;
}

/**
 * A bigint as a JSON number, refused beyond 2^53: java-tron would read it exactly, but tronweb's
 * protobuf code (which verifies and signs the transaction) works in doubles and would not.
 */
export function safeInt(value: bigint, name: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new TronInputError(`${name} must be between 0 and ${Number.MAX_SAFE_INTEGER}`);
  }
  return Number(value);
}
