import { formatAmount } from '../chains/amount.ts';
import type { EvmAdapter } from '../chains/evm/adapter.ts';
import { contractRead } from '../chains/evm/contract-read.ts';
import { exportKeystore, importKeystore } from '../chains/evm/keystore.ts';
import { tokenIdOf } from '../chains/evm/request-fields.ts';
import { GWEI_DECIMALS } from '../chains/evm/units.ts';
import type { KeyCodec } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { AddressKeys } from '../custody/address-keys.ts';
import { WrongPasswordError } from '../custody/key-vault.ts';
import { ApiError, invalidField } from '../errors.ts';
import { wrongPasswordIs401 } from './address-custody.ts';

export interface EvmDeps {
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  keys: KeyCodec;
}

/** The EVM use cases behind the routes of ethereum, bsc, polygon and arbitrum (sends: chains/evm/sends.ts). */
export class EvmService {
  constructor(private readonly deps: EvmDeps) {}

  adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.get<EvmAdapter>(chain, network);
  }

  private scope(userId: string, chain: ChainName, network: Network) {
    return { userId, chain, network, codec: this.deps.keys };
  }

  // --- addresses -------------------------------------------------------------------------------

  async importPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    privateKey: string,
    password?: string,
  ) {
    this.adapter(chain, network);
    const pair = await this.deps.addressKeys.import(this.scope(userId, chain, network), privateKey, password);
    return { address: pair.address, publicKey: pair.publicKey };
  }

  /** A keystore v3 file (scrypt or pbkdf2) opened with its password, which then protects the stored key. */
  async importKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    content: unknown,
    filename: string,
    password: string,
  ) {
    this.adapter(chain, network);
    let parsed: unknown = content;
    if (typeof content === 'string') {
      try {
        parsed = JSON.parse(content);
      } catch {
        throw invalidField('content', 'The content field must be a keystore v3 JSON document.');
      }
    }
    let pair: Awaited<ReturnType<typeof importKeystore>>;
    try {
      pair = await importKeystore(parsed, password, { owner: userId });
    } catch (error) {
      if (error instanceof WrongPasswordError) throw new ApiError(401, 'Wrong password provided');
      throw error;
    }
    await this.deps.addressKeys.import(this.scope(userId, chain, network), pair.privateKey, password);
    return { filename, content: parsed, address: pair.address };
  }

  async exportKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await wrongPasswordIs401(() =>
      this.deps.addressKeys.exportKey(this.scope(userId, chain, network), address, password),
    );
    return exportKeystore(key, password, { caller: { owner: userId } });
  }

  async exportPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await wrongPasswordIs401(() =>
      this.deps.addressKeys.exportKey(this.scope(userId, chain, network), address, password),
    );
    return { private_key: `0x${key}` };
  }

  // --- token and NFT reads, gas price (the reads every chain has: chains/evm/reads.ts) -----------

  async tokenBalance(chain: ChainName, network: Network, address: string, contract: string) {
    const { balance, decimals } = await contractRead(() =>
      this.adapter(chain, network).getErc20Balance(address, contract),
    );
    return formatAmount(balance, decimals, { fixed: decimals });
  }

  async tokenInfo(chain: ChainName, network: Network, contract: string) {
    const info = await contractRead(() => this.adapter(chain, network).getErc20Info(contract));
    return {
      address: info.address,
      symbol: info.symbol,
      name: info.name,
      decimals: info.decimals,
      totalSupply: info.totalSupply.toString(),
    };
  }

  async gasPrice(chain: ChainName, network: Network) {
    const wei = await this.adapter(chain, network).getGasPrice();
    return { gasPrice: formatAmount(wei, GWEI_DECIMALS) };
  }

  async nftOwner(chain: ChainName, network: Network, contract: string, tokenId: string) {
    return {
      owner: await contractRead(() => this.adapter(chain, network).nftOwner(contract, tokenIdOf(tokenId))),
    };
  }

  async nftUri(chain: ChainName, network: Network, contract: string, tokenId: string) {
    return {
      uri: await contractRead(() => this.adapter(chain, network).nftUri(contract, tokenIdOf(tokenId))),
    };
  }
}
