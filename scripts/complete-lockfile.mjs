// When the registry npm used does not serve some optional platform binaries (biome, anvil for other
// operating systems), npm leaves them out of package-lock.json and `npm ci` then refuses the lock.
// This adds the missing entries (version, os, cpu: nothing to download, never installed on this platform).
// Run it after any `npm install` that changes dependencies: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORMS = {
  'android-arm64': { os: ['android'], cpu: ['arm64'] },
  'android-x64': { os: ['android'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'darwin-amd64': { os: ['darwin'], cpu: ['x64'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'linux-arm64': { os: ['linux'], cpu: ['arm64'] },
  'linux-x64': { os: ['linux'], cpu: ['x64'] },
  'linux-amd64': { os: ['linux'], cpu: ['x64'] },
  'win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64': { os: ['win32'], cpu: ['x64'] },
  'win32-amd64': { os: ['win32'], cpu: ['x64'] },
};

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const entry of Object.values({ ...lock.packages })) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const platform = Object.keys(PLATFORMS).find((suffix) => name.endsWith(`-${suffix}`));
    if (!platform) throw new Error(`${name}: unknown platform suffix; add it to PLATFORMS`);
    lock.packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...PLATFORMS[platform],
    };
    added++;
  }
}
const [root, ...rest] = Object.entries(lock.packages);
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
