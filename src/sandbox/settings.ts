import type { DevnetSettings } from '../chains/sandbox-devnet.ts';
import { ConfigError, type ConfigProblem, collectProblems } from '../config/error.ts';
import { withoutEmpty } from '../config/setting.ts';
import { SETTINGS } from '../config/settings.ts';

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
