/** Contract reads for callers outside the family (Chainlink price feeds), through the chain's adapter. */
import type { ContractCall } from '../family.ts';
import { EvmAdapter } from './adapter.ts';

/** `eth_call` at the latest block, with the adapter's timeouts, retries and failover. */
export const evmCallContract: ContractCall = (adapter, { to, data }) => {
  if (!(adapter instanceof EvmAdapter)) throw new TypeError(`${adapter.chain} is not an EVM chain`);
  return adapter.rpc.request<`0x${string}`>('eth_call', [{ to, data }, 'latest']);
};
