import { assetAmount, formatAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { EvmAdapter } from './adapter.ts';
import { contractRead } from './contract-read.ts';
import { tokenIdOf } from './request-fields.ts';
import { GWEI_DECIMALS } from './units.ts';

export interface EvmTokenReadsDeps {
  registry: ChainRegistry;
}

/**
 * The EVM routes' own reads: token balances and info, the gas price, NFT owners and URIs (the reads
 * every chain has: reads.ts).
 */
export class EvmTokenReads {
  constructor(private readonly deps: EvmTokenReadsDeps) {}

  private adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.adapterOf(chain, network, EvmAdapter);
  }

  async tokenBalance(chain: ChainName, network: Network, address: string, contract: string) {
    const { balance, decimals } = await contractRead(() =>
      this.adapter(chain, network).getErc20Balance(address, contract),
    );
    return assetAmount(balance, decimals);
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
