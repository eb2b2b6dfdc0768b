/** Exit status of a configuration that cannot be used (sysexits' EX_CONFIG), for the server and the CLI. */
export const EXIT_CONFIG = 78;

/** One bad setting: the variable and what is wrong with it, with how to fix it where that is not obvious. */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * The configuration cannot be used. It carries every problem found, so one start names them all; `variable`
 * is the first one's (most callers and tests look at a single setting).
 */
export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  readonly variable: string;

  constructor(variable: string, problem: string);
  constructor(problems: ConfigProblem[]);
  constructor(variableOrProblems: string | ConfigProblem[], problem = '') {
    const problems =
      typeof variableOrProblems === 'string'
        ? [{ variable: variableOrProblems, problem }]
        : variableOrProblems;
    super(configErrorMessage(problems));
    this.name = 'ConfigError';
    this.problems = problems;
    this.variable = problems[0]?.variable ?? '';
  }
}

function configErrorMessage(problems: ConfigProblem[]): string {
  if (problems.length === 1) return `Invalid configuration ${problems[0]!.variable}: ${problems[0]!.problem}`;
  const lines = problems.map(({ variable, problem }) => `  ${variable}: ${problem}`);
  return `Invalid configuration, ${problems.length} problems:\n${lines.join('\n')}`;
}

/** Runs `read`; a ConfigError it throws is added to `problems` instead, and the result is then undefined. */
export function collectProblems<T>(problems: ConfigProblem[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}
