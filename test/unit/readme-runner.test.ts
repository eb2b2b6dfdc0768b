import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, waitFor } from '../helpers/processes.ts';
import { runSnippets } from '../helpers/readme-runner.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('runSnippets', () => {
  it('runs sh blocks in one session and node blocks in between, seeing what the sh blocks exported', async () => {
    const run = await runSnippets(
      [
        { lang: 'sh', line: 10, code: 'GREETING=hello; export GREETING\nLOCAL=kept\n' },
        {
          lang: 'js',
          line: 20,
          code: "import { ok } from 'node:assert';\nok(true);\nconsole.log('node says', process.env.GREETING);\n",
        },
        { lang: 'bash', line: 30, code: 'echo "$LOCAL and $FROM_TEST"\n' },
      ],
      { FROM_TEST: 'given' },
      20_000,
    );
    expect(run.code, run.output).toBe(0);
    expect(run.outputOf(20)).toContain('node says hello');
    expect(run.outputOf(30)).toContain('kept and given');
    expect(run.outputOf(20)).not.toContain('kept and given');
    // Its node file (named by the block's line) is gone; the README's own runs may have theirs meanwhile.
    expect(readdirSync(PROJECT_ROOT).filter((name) => name.startsWith('.readme-snippet-20-'))).toEqual([]);
  });

  it('stops at the first failing command, unset variable or failing pipe', async () => {
    for (const code of [
      'false\necho after\n',
      'echo "$NOT_SET_ANYWHERE"\necho after\n',
      'false | cat\necho after\n',
    ]) {
      const run = await runSnippets([{ lang: 'sh', line: 1, code }], {}, 20_000);
      expect(run.code, code).not.toBe(0);
      expect(run.output, code).not.toContain('after');
    }
  });

  it('stops what the blocks left running in the background', async () => {
    const started = Date.now();
    const run = await runSnippets(
      [{ lang: 'sh', line: 1, code: 'sleep 300 &\necho "pid $!"\n' }],
      {},
      60_000,
    );
    // At once when bash is done, not at the time limit.
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = Number(run.output.match(/pid (\d+)/)?.[1]);
    expect(run.code).toBe(0);
    expect(pid).toBeGreaterThan(0);
    // Killed; the system reaps it a moment later.
    await waitFor(() => (alive(pid) ? undefined : true), 5_000);
  });

  it('stops a run that outlasts its time', async () => {
    const started = Date.now();
    const run = await runSnippets([{ lang: 'sh', line: 1, code: 'sleep 300\n' }], {}, 500);
    expect(run.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(existsSync(PROJECT_ROOT)).toBe(true);
  });
});
