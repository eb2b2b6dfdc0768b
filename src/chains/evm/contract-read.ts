import { ApiError } from '../../errors.ts';
import type { EvmAdapter } from './adapter.ts';
import { EvmContractError } from './errors.ts';

/** Contract reads answer 400 when the address is not the contract the route needs. */
export async function contractRead<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvmContractError) throw new ApiError(400, error.message);
    throw error;
  }
}

/** A token send needs decimals: no code is 422 `not a token contract`; code without decimals() is 400. */
export async function tokenDecimals(adapter: EvmAdapter, contract: string): Promise<number> {
  await adapter.requireTokenContract(contract);
  return contractRead(() => adapter.getErc20Decimals(contract));
}
