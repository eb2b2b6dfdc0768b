#!/usr/bin/env node
// `npm run cli`: the admin CLI as built (dist/src/cli/main.js) when the build is newer than every source it
// is built from, else the sources through tsx. tsx compiles at every start (5 to 12 s a command on a busy
// machine), the built CLI starts in about a second; looking at the sources' times takes milliseconds.
// A stale build is never run: it would answer with the code of an older checkout.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist/src/cli/main.js');
/** What tsconfig.build.json compiles, and the settings it compiles them with. */
const SOURCES = ['src', 'devnets', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time under `file` (0 when it does not exist, as in the Docker image). */
function newest(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)));
  return latest;
}

function builtIsCurrent() {
  if (newest(built) === 0) return false;
  // tsc builds incrementally: it writes the files whose sources changed, and its build info at every build.
  const builtAt = Math.max(newest(path.join(root, 'dist/src')), newest(path.join(root, 'dist/.tsbuildinfo')));
  return SOURCES.every((source) => newest(path.join(root, source)) <= builtAt);
}

if (builtIsCurrent()) {
  await import(pathToFileURL(built).href);
} else {
  // tsx is a development dependency: a checkout has it, and only a checkout has sources newer than dist.
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src/cli/main.ts')).href);
}
