// The README's code blocks and the marker before each: `<!-- run: GROUP -->` (a test runs the block word
// for word) or `<!-- not run: REASON -->` (shown only). Tests use it so the README cannot drift from
// the code.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './processes.ts';

export const README_PATH = path.join(PROJECT_ROOT, 'README.md');

/** Languages whose blocks a reader copies and runs: each must carry a marker. */
export const RUNNABLE_LANGUAGES: readonly string[] = ['sh', 'bash', 'js', 'mjs', 'ts', 'python'];

/**
 * Every group a `<!-- run: GROUP -->` marker may name, with the test file that runs its blocks (through
 * `readmeSnippets('GROUP')`). A new group is one line here and its test.
 */
export const SNIPPET_GROUPS: Readonly<Record<string, string>> = {
  sandbox: 'test/e2e/readme-sandbox.test.ts',
  production: 'test/e2e/production-start.test.ts',
  deployment: 'test/e2e/topology.test.ts',
};

export type SnippetMarker = { run: string } | { notRun: string } | null;

export interface ReadmeBlock {
  /** The fence's language, lower case; '' when the fence names none. */
  lang: string;
  /** The lines between the fences, with a final newline. */
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** What the line right before the opening fence says; null when it is no marker. */
  marker: SnippetMarker;
}

export interface Snippet {
  lang: string;
  code: string;
  line: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
const RUN = /^\s*<!--\s*run:\s*([\w-]+)\s*-->\s*$/;
const NOT_RUN = /^\s*<!--\s*not run:\s*(\S.*?)\s*-->\s*$/;

function markerOf(line: string | undefined): SnippetMarker {
  const run = line?.match(RUN);
  if (run) return { run: run[1]! };
  const notRun = line?.match(NOT_RUN);
  return notRun ? { notRun: notRun[1]! } : null;
}

/** Every fenced block of `markdown`, in order. An unclosed fence runs to the end, as CommonMark reads it. */
export function parseReadmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = lines[index]!.match(FENCE);
    if (!open) continue;
    const fence = open[2]!;
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end]!)) body.push(lines[end++]!);
    blocks.push({
      lang: open[3]!.toLowerCase(),
      code: body.length ? `${body.join('\n')}\n` : '',
      line: index + 1,
      marker: markerOf(lines[index - 1]),
    });
    index = end;
  }
  return blocks;
}

export function readmeBlocks(file = README_PATH): ReadmeBlock[] {
  return parseReadmeBlocks(readFileSync(file, 'utf8'));
}

/** The blocks marked `<!-- run: group -->`, in README order. */
export function readmeSnippets(group: string, file = README_PATH): Snippet[] {
  return readmeBlocks(file)
    .filter((block) => block.marker !== null && 'run' in block.marker && block.marker.run === group)
    .map(({ lang, code, line }) => ({ lang, code, line }));
}
