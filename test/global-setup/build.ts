// Vitest global setup of the process tests: dist/ compiled and the dashboard built once, before any file
// starts the gateway or the CLI from it as `npm start` does. CI has just built it; locally it is rebuilt when a source is newer.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, run } from '../helpers/processes.ts';

export default async function setup(): Promise<void> {
  // Both outputs: the compiled server and the dashboard it serves.
  const outputs = ['dist/src/main.js', 'dist/dashboard/index.html'].map((file) =>
    statSync(path.join(PROJECT_ROOT, file), { throwIfNoEntry: false }),
  );
  const sources = ['src', 'devnets', 'dashboard'].flatMap((dir) =>
    readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' }).map((entry) =>
      path.join(PROJECT_ROOT, dir, entry),
    ),
  );
  const newestSource = Math.max(...sources.map((file) => statSync(file).mtimeMs));
  if (outputs.every((built) => built !== undefined && built.mtimeMs >= newestSource)) return;
  const build = await run('npm', ['run', 'build']);
  if (build.code !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
}
