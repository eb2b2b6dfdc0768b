import { ConfigError, type ConfigProblem, collectProblems } from '../config/error.ts';
import { withoutEmpty } from '../config/setting.ts';
import { SETTINGS } from '../config/settings.ts';

/** How the sandbox runs its devnets, from SANDBOX_* variables. */
export interface DevnetSettings {
  /** Seconds between EVM devnet blocks while no transaction comes; 0: a block per transaction only. */
  evmBlockTime: number;
  /** How often the devnets save their chains, in ms; 0: only when the sandbox stops. */
  saveIntervalMs: number;
}

export function devnetSettings(env: NodeJS.ProcessEnv = process.env): DevnetSettings {
  const set = withoutEmpty(env);
  const problems: ConfigProblem[] = [];
  const blockTime = collectProblems(problems, () =>
    SETTINGS.SANDBOX_EVM_BLOCK_TIME.read(set, 'SANDBOX_EVM_BLOCK_TIME'),
  );
  const saveInterval = collectProblems(problems, () =>
    SETTINGS.SANDBOX_SNAPSHOT_INTERVAL.read(set, 'SANDBOX_SNAPSHOT_INTERVAL'),
  );
  if (blockTime === undefined || saveInterval === undefined) throw new ConfigError(problems);
  return { evmBlockTime: blockTime, saveIntervalMs: Math.round(saveInterval * 1000) };
}
