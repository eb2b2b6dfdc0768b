// Runs a group of README snippets as a reader would: the sh blocks, word for word, in one bash session
// (`set -euo pipefail`, so variables carry over and a failing command stops the run), each node block
// written to a temp `.mjs` in the project root (so it imports the project's packages) and run by that
// session at its place in the README, seeing what the sh blocks exported.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './processes.ts';
import type { Snippet } from './readme-snippets.ts';

const SHELL_LANGUAGES = new Set(['sh', 'bash']);
const NODE_LANGUAGES = new Set(['js', 'mjs']);

export interface SnippetRun {
  /** bash's exit code; null when it was stopped at the time limit. */
  code: number | null;
  /** stdout and stderr together, each block's output after a `### README.md:LINE` heading. */
  output: string;
  /** The output of the block that opens at README line `line`. */
  outputOf(line: number): string;
}

const heading = (line: number) => `### README.md:${line}`;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The bash script of `snippets`, and the node files it runs. */
function scriptOf(snippets: readonly Snippet[]): { script: string; files: string[] } {
  const files: string[] = [];
  const parts = ['set -euo pipefail'];
  for (const snippet of snippets) {
    // The seconds since the start show, on a failure, where the run spent its time.
    parts.push(`printf '\\n%s at %s s\\n' ${shellQuote(heading(snippet.line))} "$SECONDS"`);
    if (SHELL_LANGUAGES.has(snippet.lang)) {
      parts.push(snippet.code);
    } else if (NODE_LANGUAGES.has(snippet.lang)) {
      const file = path.join(
        PROJECT_ROOT,
        `.readme-snippet-${snippet.line}-${randomBytes(4).toString('hex')}.mjs`,
      );
      writeFileSync(file, snippet.code);
      files.push(file);
      parts.push(`node ${shellQuote(file)}`);
    } else {
      throw new Error(
        `README.md:${snippet.line}: no runner for ${snippet.lang || 'a block without language'}`,
      );
    }
  }
  return { script: `${parts.join('\n')}\n`, files };
}

/**
 * Runs `snippets` with `env` added to this process's environment, at most `timeoutMs`. Whatever they
 * leave running in the background (a receiver) is stopped at the end: the session is a process group.
 */
export async function runSnippets(
  snippets: readonly Snippet[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<SnippetRun> {
  const { script, files } = scriptOf(snippets);
  const bash = spawn('bash', ['-c', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  bash.stdout.on('data', (chunk) => {
    output += chunk;
  });
  bash.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const stopGroup = () => {
    try {
      process.kill(-(bash.pid as number), 'SIGKILL');
    } catch {
      // the group is already gone
    }
  };
  const timer = setTimeout(stopGroup, timeoutMs);
  try {
    const closed = new Promise<void>((resolve) => bash.once('close', () => resolve()));
    const code = await new Promise<number | null>((resolve, reject) => {
      bash.once('error', reject);
      bash.once('exit', (exitCode) => resolve(exitCode));
    });
    // What it left in the background may hold the output open: stop it, then read the last output.
    stopGroup();
    await closed;
    return {
      code,
      output,
      outputOf: (line) => {
        const start = output.indexOf(heading(line));
        if (start < 0) return '';
        const next = output.indexOf('\n### README.md:', start + 1);
        return output.slice(start, next < 0 ? undefined : next);
      },
    };
  } finally {
    clearTimeout(timer);
    stopGroup();
    for (const file of files) rmSync(file, { force: true });
  }
}
