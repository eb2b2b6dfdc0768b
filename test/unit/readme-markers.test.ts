import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/processes.ts';
import {
  parseReadmeBlocks,
  README_PATH,
  RUNNABLE_LANGUAGES,
  readmeBlocks,
  readmeSnippets,
  SNIPPET_GROUPS,
} from '../helpers/readme-snippets.ts';

const where = (line: number) => `README.md:${line}`;

describe('README snippet markers', () => {
  const blocks = readmeBlocks();

  it('puts a run or not-run marker before every sh, bash, js, mjs, ts and python block', () => {
    const unmarked = blocks
      .filter((block) => RUNNABLE_LANGUAGES.includes(block.lang) && block.marker === null)
      .map((block) => `${where(block.line)} (${block.lang})`);
    expect(unmarked, 'blocks without <!-- run: GROUP --> or <!-- not run: REASON -->').toEqual([]);
  });

  it('runs only blocks of a runnable language', () => {
    const samples = blocks
      .filter((block) => block.marker && 'run' in block.marker && !RUNNABLE_LANGUAGES.includes(block.lang))
      .map((block) => `${where(block.line)} (${block.lang || 'no language'})`);
    expect(samples).toEqual([]);
  });

  it('names only known groups, each with a test file that runs it', () => {
    const named = new Set(
      blocks.flatMap((block) => (block.marker && 'run' in block.marker ? [block.marker.run] : [])),
    );
    for (const group of named) {
      const file = SNIPPET_GROUPS[group];
      expect(file, `group "${group}" is not listed in SNIPPET_GROUPS`).toBeDefined();
      const absolute = path.join(PROJECT_ROOT, file!);
      expect(existsSync(absolute), `${file} runs group "${group}"`).toBe(true);
      expect(readFileSync(absolute, 'utf8')).toMatch(new RegExp(`readmeSnippets\\(['"]${group}['"]`));
    }
  });

  it('leaves no marker comment that a code block does not follow', () => {
    const lines = readFileSync(README_PATH, 'utf8').split('\n');
    const fenced = new Set(blocks.map((block) => block.line - 1));
    const stray = lines.flatMap((text, index) =>
      /^\s*<!--\s*(not )?run:/.test(text) && !fenced.has(index + 1) ? [where(index + 1)] : [],
    );
    expect(stray).toEqual([]);
  });
});

describe('parseReadmeBlocks', () => {
  const markdown = [
    '# Title',
    '<!-- run: sandbox -->',
    '```sh',
    'echo one',
    '```',
    '',
    '<!-- not run: needs a Docker daemon -->',
    '```bash',
    'docker compose up',
    '```',
    '````md',
    '```js',
    'inside a longer fence',
    '```',
    '````',
    '```json',
    '{"a": 1}',
    '```',
    '<!-- run: sandbox -->',
    '```js',
    "console.log('two')",
    '```',
  ].join('\n');

  it('reads each block with its language, code, opening line and marker', () => {
    expect(parseReadmeBlocks(markdown)).toEqual([
      { lang: 'sh', code: 'echo one\n', line: 3, marker: { run: 'sandbox' } },
      { lang: 'bash', code: 'docker compose up\n', line: 8, marker: { notRun: 'needs a Docker daemon' } },
      { lang: 'md', code: '```js\ninside a longer fence\n```\n', line: 11, marker: null },
      { lang: 'json', code: '{"a": 1}\n', line: 16, marker: null },
      { lang: 'js', code: "console.log('two')\n", line: 20, marker: { run: 'sandbox' } },
    ]);
  });

  it("returns a group's blocks in README order", () => {
    const file = path.join(PROJECT_ROOT, 'README.md');
    expect(readmeSnippets('no-such-group', file)).toEqual([]);
    expect(readmeSnippets('sandbox').every((snippet) => RUNNABLE_LANGUAGES.includes(snippet.lang))).toBe(
      true,
    );
  });
});
