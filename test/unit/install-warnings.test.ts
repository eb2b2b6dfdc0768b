import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/processes.ts';

// `npm ci` on a fresh clone must print no warning a newcomer has to wonder about. Two kinds come from the
// lockfile alone, so they are caught here in milliseconds instead of by a slow install: EBADENGINE (a locked
// package wants a newer Node than the project supports) and npm 11's install-scripts notice (a package
// with an install script that allowScripts neither allows nor denies).

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
  hasInstallScript?: boolean;
}

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const locked = Object.entries(
  (JSON.parse(read('package-lock.json')) as { packages: Record<string, LockedPackage> }).packages,
).filter(([location]) => location !== '');
const packageName = (location: string) => location.slice(location.lastIndexOf('node_modules/') + 13);

describe('npm ci prints no warning', () => {
  it('locks no package whose engines.node refuses the oldest Node the project supports (EBADENGINE)', () => {
    const oldest = semver.minVersion(manifest.engines.node);
    expect(oldest).not.toBeNull();
    const refusing = locked
      // An array is the old, ignored form of engines; npm only checks the object form.
      .filter(([, pkg]) => pkg.engines && !Array.isArray(pkg.engines) && pkg.engines.node)
      .filter(([, pkg]) => {
        const wanted = (pkg.engines as Record<string, string>).node!;
        return !semver.satisfies(oldest!, wanted, { includePrerelease: true });
      })
      .map(([location, pkg]) => `${location}@${pkg.version} wants node ${JSON.stringify(pkg.engines)}`);
    expect(refusing).toEqual([]);
  });

  it('names in allowScripts every locked package with an install script, allowed or not', () => {
    const decided = new Set(
      Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1')),
    );
    const undecided = locked
      .filter(([, pkg]) => pkg.hasInstallScript)
      .map(([location]) => packageName(location))
      .filter((name) => !decided.has(name));
    expect(undecided).toEqual([]);
  });

  it('keeps engines, .nvmrc, the Dockerfile and the README on one Node story', () => {
    const oldest = semver.minVersion(manifest.engines.node)!;
    const nvmrc = read('.nvmrc').trim();
    // The image runs the Node .nvmrc names, and that Node is one the project supports.
    const images = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((match) => match[1]);
    expect(images.length).toBeGreaterThan(0);
    for (const major of images) expect(major).toBe(nvmrc);
    expect(semver.satisfies(`${nvmrc}.99.99`, manifest.engines.node)).toBe(true);
    // Both README and CONTRIBUTING say the oldest supported Node and the one .nvmrc names.
    for (const doc of ['README.md', 'CONTRIBUTING.md']) {
      expect(read(doc), doc).toContain(`Node.js ${oldest.major}.${oldest.minor} or newer`);
      expect(read(doc), doc).toContain(`\`.nvmrc\` names ${nvmrc}`);
    }
  });
});
