import { EVM_CHAIN_NAMES, EVM_CHAINS } from '../chains/evm/chains.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { NodeEndpointConfig } from '../config.ts';
import type { Faucet } from '../services/faucets.ts';
import { evmSandboxDevnet } from './evm-devnet.ts';
import type { DevnetSettings } from './settings.ts';
import { startTronSandboxDevnet } from './tron-devnet.ts';

/** Demo tokens a devnet pre-deploys: standard (trc20, erc20 ...) -> symbol -> contract address or id. */
export type DevnetTokens = Record<string, Record<string, string>>;

/** A local chain started by the sandbox for one network. */
export interface RunningDevnet {
  chain: ChainName;
  network: Network;
  endpoints: NodeEndpointConfig[];
  tokens: DevnetTokens;
  faucet: Faucet;
  stop(): Promise<void>;
}

/**
 * Starts one chain's devnet for one network. Its chain lives under `dir`: a devnet started on a folder
 * holding a saved chain carries on from it, and saves it on a timer and when stopped.
 */
export type DevnetStarter = (
  network: Network,
  dir: string,
  settings: DevnetSettings,
) => Promise<RunningDevnet>;

/**
 * The devnets the sandbox runs, one per chain, each started once per network. Chains add theirs here.
 */
export const DEVNET_STARTERS: Partial<Record<ChainName, DevnetStarter>> = {
  tron: startTronSandboxDevnet,
  ...Object.fromEntries(
    EVM_CHAIN_NAMES.map((chain) => [chain, evmSandboxDevnet(chain, EVM_CHAINS[chain].nativeSymbol)]),
  ),
};
