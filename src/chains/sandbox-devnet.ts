/**
 * What a family's sandbox devnet is: a local chain the sandbox starts per network, with its endpoints,
 * demo tokens and faucet. Each family module names its own (`FamilyModule.sandboxDevnets`), loaded only
 * by the sandbox.
 */
import type { NodeEndpointConfig } from '../config.ts';
import type { Faucet } from './faucets.ts';
import type { ChainName, Network } from './types.ts';

/** How the sandbox runs its devnets, from SANDBOX_* variables. */
export interface DevnetSettings {
  /** Seconds between EVM devnet blocks while no transaction comes; 0: a block per transaction only. */
  evmBlockTime: number;
  /** How often the devnets save their chains, in ms; 0: only when the sandbox stops. */
  saveIntervalMs: number;
}

/** Demo tokens a devnet pre-deploys: standard (trc20, erc20 ...) -> symbol -> contract address or id. */
export type DevnetTokens = Record<string, Record<string, string>>;

/** A local chain started by the sandbox for one network. */
export interface RunningDevnet {
  chain: ChainName;
  network: Network;
  endpoints: NodeEndpointConfig[];
  /** Where the devnet announces new blocks (`<CHAIN>_<NETWORK>_WS_URL`), when it can. */
  wsUrl?: string;
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

/** A family's devnet starters, one per chain it serves. */
export type DevnetStarters = Record<ChainName, DevnetStarter>;
