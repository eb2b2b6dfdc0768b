/**
 * Token reads: TRC20 through constant calls (balanceOf, decimals, name, symbol, totalSupply) and TRC10
 * through account and asset-issue records. TRC20 decimals are immutable in practice and asked on every
 * balance read, so they are cached per contract.
 */
import { decodeString, decodeUint, functionSelector } from './abi.ts';
import { addressToAbiWord, toBase58Address, toHexAddress } from './address.ts';
import { TronContractError, TronInvalidResponseError } from './errors.ts';
import type { NodeJson, TronNodeApi } from './node-api.ts';
import { decodeNodeText, nodeErrorFrom } from './node-messages.ts';
import { int } from './resources.ts';
import { trc10Id } from './transaction-builder.ts';

/** Bounds the decimals cache; far above the number of tokens a gateway sees. */
const MAX_CACHED_DECIMALS = 10_000;
/** ERC-20 allows up to 255; anything above what amounts can express is treated as broken. */
const MAX_TOKEN_DECIMALS = 77;

export interface Trc20Info {
  /** Base58 contract address. */
  address: string;
  symbol: string;
  name: string;
  /** Base units, decimal text. */
  totalSupply: string;
  /** Decimal text, as the Chaingateway API shows it. */
  decimals: string;
}

export interface Trc10Info {
  id: string;
  name: string;
  abbr: string;
  /** Decimal places of the token (0..6). */
  precision: number;
  /** Base units. */
  totalSupply: bigint;
  /** Base58 issuer address. */
  owner: string;
  description: string;
  url: string;
}

export class TronTokenReader {
  readonly #decimals = new Map<string, number>();

  constructor(private readonly node: TronNodeApi) {}

  async trc20Balance(address: string, contract: string): Promise<{ balance: bigint; decimals: number }> {
    const holder = toHexAddress(address);
    const [output, decimals] = await Promise.all([
      this.#call(contract, 'balanceOf(address)', addressToAbiWord(holder)),
      this.trc20Decimals(contract),
    ]);
    const balance = decodeUint(output);
    if (balance === null)
      throw new TronContractError(toBase58Address(contract), 'contract did not answer balanceOf');
    return { balance, decimals };
  }

  async trc20Decimals(contract: string): Promise<number> {
    const key = toHexAddress(contract);
    const cached = this.#decimals.get(key);
    if (cached !== undefined) return cached;
    const value = decodeUint(await this.#call(key, 'decimals()'));
    if (value === null || value > BigInt(MAX_TOKEN_DECIMALS)) {
      throw new TronContractError(toBase58Address(key), 'contract did not answer decimals');
    }
    if (this.#decimals.size >= MAX_CACHED_DECIMALS) this.#decimals.clear();
    this.#decimals.set(key, Number(value));
    return Number(value);
  }

  async trc20Info(contract: string): Promise<Trc20Info> {
    const hex = toHexAddress(contract);
    const base58 = toBase58Address(hex);
    const [name, symbol, decimals, totalSupply] = await Promise.all([
      this.#call(hex, 'name()').then(decodeString),
      this.#call(hex, 'symbol()').then(decodeString),
      this.trc20Decimals(hex),
      this.#call(hex, 'totalSupply()').then(decodeUint),
    ]);
    if (name === null) throw new TronContractError(base58, 'contract did not answer name');
    if (symbol === null) throw new TronContractError(base58, 'contract did not answer symbol');
    if (totalSupply === null) throw new TronContractError(base58, 'contract did not answer totalSupply');
    return { address: base58, symbol, name, totalSupply: totalSupply.toString(), decimals: String(decimals) };
  }

  async trc10Balance(address: string, tokenId: string): Promise<bigint> {
    const id = trc10Id(tokenId);
    const account = await this.node.getAccount(toHexAddress(address));
    const assets = Array.isArray(account['assetV2']) ? (account['assetV2'] as NodeJson[]) : [];
    // An entry whose balance is 0 prints without `value` (proto3 default).
    const entry = assets.find((a) => a !== null && typeof a === 'object' && a['key'] === id);
    return entry ? int(entry['value']) : 0n;
  }

  /** The asset's record; TronContractError when no TRC10 token has this id. */
  async trc10Info(tokenId: string): Promise<Trc10Info> {
    const id = trc10Id(tokenId);
    const asset = await this.node.getAssetIssueById(id);
    if (Object.keys(asset).length === 0) throw new TronContractError(id, `TRC10 token ${id} does not exist`);
    const text = (field: string) =>
      typeof asset[field] === 'string' ? bytesText(asset[field] as string) : '';
    const owner = asset['owner_address'];
    if (typeof owner !== 'string')
      throw new TronInvalidResponseError('Tron node sent a TRC10 asset without an owner');
    return {
      id: typeof asset['id'] === 'string' ? asset['id'] : id,
      name: text('name'),
      abbr: text('abbr'),
      precision: Number(int(asset['precision'])),
      totalSupply: int(asset['total_supply']),
      owner: toBase58Address(owner),
      description: text('description'),
      url: text('url'),
    };
  }

  /**
   * Output hex of a constant call. Calls from the contract's own address: it always exists on chain,
   * and view functions do not care who asks.
   */
  async #call(contract: string, signature: string, parameter = ''): Promise<string> {
    const hex = toHexAddress(contract);
    const body = await this.node.triggerConstantContract({
      owner_address: hex,
      contract_address: hex,
      data: functionSelector(signature) + parameter,
    });
    const base58 = toBase58Address(hex);
    const failed = firstRet(body) === 'FAILED';
    const error = nodeErrorFrom(body);
    if (failed || error) {
      const why = error ? error.message : 'reverted';
      throw new TronContractError(base58, `${signature} failed on ${base58}: ${why}`);
    }
    const results = body['constant_result'];
    const output = Array.isArray(results) && typeof results[0] === 'string' ? results[0] : '';
    return output;
  }
}

function firstRet(body: NodeJson): unknown {
  const tx = body['transaction'];
  if (tx === null || typeof tx !== 'object') return undefined;
  const ret = (tx as NodeJson)['ret'];
  return Array.isArray(ret) && ret[0] && typeof ret[0] === 'object' ? (ret[0] as NodeJson)['ret'] : undefined;
}

/** TRC10 text fields are bytes: hex with visible=false. */
function bytesText(hex: string): string {
  return decodeNodeText(hex);
}
