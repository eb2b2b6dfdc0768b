import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/processes.ts';

// The README's flows have the reader write files in the project folder (signing scripts, the webhook
// receiver and its log, .env). Git and Biome must both leave them alone, or following the README makes
// `npm test` fail on a file the reader was told to write.

const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');

/** Every file name the README tells the reader to save in the project folder. */
function filesTheReadmeWrites(): string[] {
  const patterns = [
    // Prose: "save this script as `sign-solana.mjs`", "and this one as `sign-viem.mjs`", "written to `x`".
    /(?:save (?:this script |this |it |its output )?as|this one as|written to) `([^`\s/]+)`/gi,
    // Shell: `cat > webhook-receiver.mjs <<'EOF'`, `node x.mjs > x.log 2>&1`.
    /^\s*cat > ([\w.-]+)/gm,
    /> ([\w.-]+\.log)\b/g,
  ];
  const names = patterns.flatMap((pattern) => [...readme.matchAll(pattern)].map((match) => match[1]!));
  return [...new Set(names)].sort();
}

const names = filesTheReadmeWrites();
const made: string[] = [];
afterAll(() => {
  for (const name of made) rmSync(path.join(PROJECT_ROOT, name), { force: true });
});

describe('files the README has the reader write', () => {
  it('are found in the README (the flows that write them are still there)', () => {
    expect(names).toEqual(
      expect.arrayContaining(['sign-bitcoin.mjs', 'sign-ethers.mjs', 'sign-solana.mjs', 'sign-viem.mjs']),
    );
    expect(names).toEqual(expect.arrayContaining(['webhook-receiver.mjs', 'webhook-receiver.log', '.env']));
  });

  it('are ignored by git', () => {
    const notIgnored = names.filter(
      (name) => spawnSync('git', ['check-ignore', '-q', name], { cwd: PROJECT_ROOT }).status !== 0,
    );
    expect(notIgnored).toEqual([]);
  });

  it('are ignored by Biome (npm run lint)', () => {
    // Biome is asked about each file as it would be written: one that lints is one `npm test` fails on.
    for (const name of names) {
      if (existsSync(path.join(PROJECT_ROOT, name))) continue;
      writeFileSync(path.join(PROJECT_ROOT, name), 'const unformatted  =  1\n');
      made.push(name);
    }
    const biome = spawnSync(path.join(PROJECT_ROOT, 'node_modules/.bin/biome'), ['check', ...names], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    const output = biome.stdout + biome.stderr;
    expect(output).toContain('These paths were provided but ignored');
    expect(output).not.toMatch(/Checked [1-9]/);
  });
});
