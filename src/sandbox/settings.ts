import { ConfigError } from '../config.ts';

/** How the sandbox runs its devnets, from SANDBOX_* variables. */
export interface DevnetSettings {
  /** Seconds between EVM devnet blocks while no transaction comes; 0: a block per transaction only. */
  evmBlockTime: number;
  /** How often the devnets save their chains, in ms; 0: only when the sandbox stops. */
  saveIntervalMs: number;
}

export const DEFAULT_EVM_BLOCK_TIME = 2;
export const DEFAULT_SNAPSHOT_INTERVAL = 5;

export function devnetSettings(env: NodeJS.ProcessEnv = process.env): DevnetSettings {
  return {
    evmBlockTime: seconds(env, 'SANDBOX_EVM_BLOCK_TIME', DEFAULT_EVM_BLOCK_TIME),
    saveIntervalMs: Math.round(seconds(env, 'SANDBOX_SNAPSHOT_INTERVAL', DEFAULT_SNAPSHOT_INTERVAL) * 1000),
  };
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(name, `"${raw}" is not a number of seconds`);
  const value = Number(raw);
  if (value > 3600) throw new ConfigError(name, `${value} is outside 0..3600`);
  return value;
}
