import type { ChainRegistry } from '../chains/registry.ts';
import type { TronAdapter } from '../chains/tron/adapter.ts';
import { toBase58Address } from '../chains/tron/address.ts';
import { TronContractError } from '../chains/tron/errors.ts';
import { trc10Info } from '../chains/tron/reads.ts';
import type { Network } from '../chains/types.ts';
import { ApiError } from '../errors.ts';

export interface TronDeps {
  registry: ChainRegistry;
}

/** The Tron reads behind the routes (sends: chains/tron/sends.ts). */
export class TronService {
  constructor(private readonly deps: TronDeps) {}

  adapter(network: Network): TronAdapter {
    return this.deps.registry.get<TronAdapter>('tron', network);
  }

  // --- token reads and chain parameters (the reads every chain has: chains/tron/reads.ts) -------

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
      trc10Info(adapter, tokenId),
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
