import { randomBytes } from 'node:crypto';
import { EXIT_CONFIG } from '../config/error.ts';
import { configSummary } from '../config/summary.ts';
import { ConfigError } from '../config.ts';
import { loadCliConfig } from './cli-config.ts';
import { sandboxSummary } from './sandbox-summary.ts';
import { sponsorSummary } from './sponsor-summary.ts';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The commands that need no database: making a master key and checking the configuration (which
 * `npm start` runs before it builds). Undefined for any other command.
 */
export async function runSetupCommand(command: string): Promise<CommandResult | undefined> {
  switch (command) {
    case 'master-key generate':
      return { code: 0, stdout: `${randomBytes(32).toString('base64')}\n`, stderr: '' };
    case 'config check':
      return checkConfig();
    default:
      return undefined;
  }
}

async function checkConfig(): Promise<CommandResult> {
  // The families' settings and chain names only: their chain libraries are not needed to check settings.
  const { lightFamilySettings, lightServedChainProblems } = await import('../chains/family-settings.ts');
  try {
    const config = loadCliConfig(process.env, lightFamilySettings());
    const chainProblems = lightServedChainProblems(config);
    if (chainProblems.length > 0) throw new ConfigError(chainProblems);
    const lines = [
      ...configSummary(config),
      ...(await sponsorSummary(config)),
      ...(config.sandbox ? await sandboxSummary() : []),
    ];
    const summary = lines.map((line) => `  ${line}\n`);
    return { code: 0, stdout: `configuration OK\n${summary.join('')}`, stderr: '' };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { code: EXIT_CONFIG, stdout: '', stderr: `${error.message}\n` };
  }
}
