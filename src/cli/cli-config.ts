import type { SettingsTable } from '../config/settings.ts';
import { type Config, loadConfig } from '../config.ts';
import { readSandboxFacts, sandboxDir, sandboxEnv, withSandboxPlan } from '../sandbox/environment.ts';

/**
 * The configuration a command works with: the server's, or with SANDBOX_DIR set the sandbox's as it runs
 * there (its defaults, and its plan given to new users), so that the CLI agrees with the sandbox it
 * administers. The sandbox's chains come from the sandbox.json it wrote when it started.
 */
export function loadCliConfig(
  env: NodeJS.ProcessEnv = process.env,
  familySettings: SettingsTable = [],
): Config {
  if (!env['SANDBOX_DIR']) return loadConfig(env, familySettings);
  const config = loadConfig(sandboxEnv(env), familySettings);
  return withSandboxPlan(config, readSandboxFacts(sandboxDir(env))?.chains ?? []);
}
