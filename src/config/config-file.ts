import { readFileSync } from 'node:fs';
import type { ConfigProblem } from './error.ts';
import { type Env, withoutEmpty } from './setting.ts';

/**
 * Every setting's text: CONFIG_FILE's values, overridden by the environment's. What `loadConfig` reads,
 * and what a part read before the configuration (the EVM chain table) reads its setting from.
 */
export function settingsText(env: Env, problems: ConfigProblem[]): Record<string, string> {
  return { ...readConfigFile(env['CONFIG_FILE'], problems), ...withoutEmpty(env) };
}

/** CONFIG_FILE's object of variable names to values; a file that cannot be read is a problem, not a crash. */
function readConfigFile(file: string | undefined, problems: ConfigProblem[]): Record<string, string> {
  if (file === undefined || file === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    problems.push({
      variable: 'CONFIG_FILE',
      problem: `cannot read ${file} as JSON (${(error as Error).message})`,
    });
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push({
      variable: 'CONFIG_FILE',
      problem: 'must hold a JSON object of variable names to values',
    });
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}
