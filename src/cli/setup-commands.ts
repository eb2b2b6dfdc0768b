import { randomBytes } from 'node:crypto';
import { EXIT_CONFIG } from '../config/error.ts';
import { configSummary } from '../config/summary.ts';
import { ConfigError, loadConfig } from '../config.ts';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The commands that need no database: making a master key and checking the configuration (which
 * `npm start` runs before it builds). Undefined for any other command.
 */
export function runSetupCommand(command: string): CommandResult | undefined {
  switch (command) {
    case 'master-key generate':
      return { code: 0, stdout: `${randomBytes(32).toString('base64')}\n`, stderr: '' };
    case 'config check':
      return checkConfig();
    default:
      return undefined;
  }
}

function checkConfig(): CommandResult {
  try {
    const config = loadConfig();
    const summary = configSummary(config).map((line) => `  ${line}\n`);
    return { code: 0, stdout: `configuration OK\n${summary.join('')}`, stderr: '' };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { code: EXIT_CONFIG, stdout: '', stderr: `${error.message}\n` };
  }
}
