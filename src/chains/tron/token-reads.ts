import { ApiError } from '../../errors.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import { TronAdapter } from './adapter.ts';
import { toBase58Address } from './address.ts';
import { TronContractError } from './errors.ts';

export interface TronTokenReadsDeps {
  registry: ChainRegistry;
}

/**
 * Tron's own reads behind its routes: TRC20 and TRC10 balances, TRC20 info and the chain parameters
 * (the reads every chain has: reads.ts; sends: sends.ts).
 */
export class TronTokenReads {
  constructor(private readonly deps: TronTokenReadsDeps) {}

  adapter(network: Network): TronAdapter {
    return this.deps.registry.adapterOf('tron', network, TronAdapter);
  }

  async trc20Balance(network: Network, address: string, contract: string) {
    const { balance, decimals } = await this.adapter(network).getTrc20Balance(address, contract);
    return {
      tronaddress: toBase58Address(address),
      decimals,
      balance: balance.toString(),
      contractaddress: toBase58Address(contract),
    };
  }

  async trc10Balance(network: Network, address: string, tokenId: string) {
    const adapter = this.adapter(network);
    const [balance, info] = await Promise.all([
      adapter.getTrc10Balance(address, tokenId),
      adapter.getTrc10Info(tokenId),
    ]);
    return {
      tronaddress: toBase58Address(address),
      decimals: info.precision,
      balance: balance.toString(),
      tokenid: tokenId,
    };
  }

  async trc20Info(network: Network, contract: string) {
    try {
      return await this.adapter(network).getTrc20Info(contract);
    } catch (error) {
      if (!(error instanceof TronContractError)) throw error;
      throw new ApiError(400, 'Error fetching TRC20 contract', [
        { field: 'contract_address', message: error.message },
      ]);
    }
  }

  chainParameters(network: Network) {
    return this.adapter(network).getChainParameters();
  }
}
