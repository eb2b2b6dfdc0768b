/**
 * Read-only token calls (eth_call at the latest block): ERC20 balances and metadata, ERC721 owner and
 * URI. A contract that has no code, or does not answer like the standard says, is an EvmContractError.
 */
import type { Abi, Address, Hex } from 'viem';
import { ERC20_ABI, ERC721_ABI } from './abi.ts';
import { EvmContractError, EvmInvalidResponseError, EvmRevertError } from './errors.ts';
import { bytesOf, isHex } from './hex.ts';
import { checksumAddress } from './keys.ts';
import { translateNodeError } from './node-errors.ts';
import type { EvmRpc } from './rpc.ts';
import { viemUtils } from './viem.ts';

export interface Erc20Info {
  address: Address;
  symbol: string;
  name: string;
  decimals: number;
  totalSupply: bigint;
}

/** Decimals never change after deployment; the bound only stops a flood of junk contracts growing it. */
const MAX_CACHED_DECIMALS = 10_000;

export class EvmTokenReader {
  readonly #rpc: EvmRpc;
  readonly #decimals = new Map<string, number>();

  constructor(rpc: EvmRpc) {
    this.#rpc = rpc;
  }

  async erc20Decimals(contract: string): Promise<number> {
    const address = checksumAddress(contract);
    const cached = this.#decimals.get(address);
    if (cached !== undefined) return cached;
    const value = await this.#read(address, ERC20_ABI, 'decimals', [], 'ERC20');
    const decimals = Number(value);
    if (this.#decimals.size >= MAX_CACHED_DECIMALS) this.#decimals.clear();
    this.#decimals.set(address, decimals);
    return decimals;
  }

  async erc20Balance(owner: string, contract: string): Promise<{ balance: bigint; decimals: number }> {
    const holder = checksumAddress(owner);
    const [balance, decimals] = await Promise.all([
      this.#read(checksumAddress(contract), ERC20_ABI, 'balanceOf', [holder], 'ERC20') as Promise<bigint>,
      this.erc20Decimals(contract),
    ]);
    return { balance, decimals };
  }

  async erc20Info(contract: string): Promise<Erc20Info> {
    const address = checksumAddress(contract);
    const [name, symbol, decimals, totalSupply] = await Promise.all([
      this.#text(address, 'name'),
      this.#text(address, 'symbol'),
      this.erc20Decimals(address),
      this.#read(address, ERC20_ABI, 'totalSupply', [], 'ERC20') as Promise<bigint>,
    ]);
    return { address, symbol, name, decimals, totalSupply };
  }

  async nftOwner(contract: string, tokenId: bigint): Promise<Address> {
    const owner = await this.#read(checksumAddress(contract), ERC721_ABI, 'ownerOf', [tokenId], 'ERC721');
    return checksumAddress(String(owner));
  }

  async nftUri(contract: string, tokenId: bigint): Promise<string> {
    return (await this.#read(
      checksumAddress(contract),
      ERC721_ABI,
      'tokenURI',
      [tokenId],
      'ERC721',
    )) as string;
  }

  /** name()/symbol(): a string per the standard; early tokens (MKR, SAI) return bytes32 instead. */
  async #text(contract: Address, fn: 'name' | 'symbol'): Promise<string> {
    const { decodeFunctionResult, encodeFunctionData } = await viemUtils();
    const raw = await this.#call(
      contract,
      encodeFunctionData({ abi: ERC20_ABI, functionName: fn }),
      fn,
      'ERC20',
    );
    try {
      return decodeFunctionResult({ abi: ERC20_ABI, functionName: fn, data: raw }) as string;
    } catch {
      if (raw.length === 66) return Buffer.from(bytesOf(raw)).toString('utf8').replace(/\0+$/, '');
      const why = raw === '0x' ? 'no contract code at this address' : `${fn}() answer is not a string`;
      throw new EvmContractError(contract, `${contract} is not an ERC20 contract: ${why}`);
    }
  }

  async #read(contract: Address, abi: Abi, fn: string, args: unknown[], standard: string): Promise<unknown> {
    const { decodeFunctionResult, encodeFunctionData } = await viemUtils();
    const data = encodeFunctionData({ abi, functionName: fn, args });
    const raw = await this.#call(contract, data, fn, standard);
    try {
      return decodeFunctionResult({ abi, functionName: fn, data: raw });
    } catch {
      // "0x" is what eth_call returns for an address without code.
      const why = raw === '0x' ? 'no contract code at this address' : `${fn}() answer cannot be decoded`;
      throw new EvmContractError(contract, `${contract} is not an ${standard} contract: ${why}`);
    }
  }

  async #call(contract: Address, data: Hex, fn: string, standard: string): Promise<Hex> {
    let raw: unknown;
    try {
      raw = await this.#rpc.request<unknown>('eth_call', [{ to: contract, data }, 'latest']);
    } catch (error) {
      const translated = await translateNodeError(error);
      if (translated instanceof EvmRevertError) {
        const reason = translated.reason === null ? '' : `: ${translated.reason}`;
        throw new EvmContractError(contract, `${standard} call ${fn}() reverted on ${contract}${reason}`);
      }
      throw translated;
    }
    // Only hex data is the contract's answer. Anything else is a broken node or middlebox: taken for the
    // contract's, it would call a token no token (400) and have the watcher report its amounts unscaled.
    if (typeof raw !== 'string' || !isHex(raw)) {
      throw new EvmInvalidResponseError(
        `${this.#rpc.chain} ${this.#rpc.network} node sent no call data for ${fn}() on ${contract}`,
      );
    }
    return raw;
  }
}
