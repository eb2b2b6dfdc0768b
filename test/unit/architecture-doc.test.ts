// docs/architecture.md is the map a newcomer reads before changing the code: every file it names must
// exist, so that a move or a rename that forgets the page fails here rather than misleading a reader.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/chains/families.ts';
import { PROJECT_ROOT } from '../helpers/processes.ts';

const page = readFileSync(join(PROJECT_ROOT, 'docs/architecture.md'), 'utf8');
const FILE = /^[\w<>.\-/]+\.(ts|tsx|md|json|sol|yaml|sh)$/;
/** Where a path the page writes without its leading folders is read from. */
const ROOTS = ['', 'src', 'test', 'docs'];

/** Every file below `dir`, relative to the project. */
function filesBelow(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(PROJECT_ROOT.length));
}

/** The names in code spans that are files of this project (not routes, not the shared references). */
function namedFiles(): string[] {
  const spans = [...page.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] ?? '');
  return [...new Set(spans.filter((span) => FILE.test(span) && !span.startsWith('/')))];
}

/** A `<family>` in a path stands for each family's folder. */
const expanded = (path: string) =>
  path.includes('<family>') ? FAMILIES.map((family) => path.replace('<family>', family.name)) : [path];

describe('docs/architecture.md', () => {
  const everyFile = [...filesBelow('src'), ...filesBelow('test'), ...filesBelow('devnets')];

  it.each(namedFiles().filter((path) => path.includes('/')))('names %s, which exists', (path) => {
    for (const one of expanded(path).filter((p) => !p.includes('<'))) {
      const found = ROOTS.some((root) => existsSync(join(PROJECT_ROOT, root, one)));
      expect(found, `${one} is named by docs/architecture.md but is not in the project`).toBe(true);
    }
  });

  it('names files by their bare name only where one of that name exists', () => {
    const bare = namedFiles().filter((path) => !path.includes('/') && !path.includes('<'));
    const missing = bare.filter(
      (name) => !existsSync(join(PROJECT_ROOT, name)) && !everyFile.some((file) => file.endsWith(`/${name}`)),
    );
    expect(missing).toEqual([]);
  });

  it('lists every family of families.ts', () => {
    for (const family of FAMILIES) expect(page).toContain(`chains/${family.name}/`);
  });
});
