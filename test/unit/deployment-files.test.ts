import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT, run } from '../helpers/processes.ts';

// No Docker daemon runs here, so the image is never built by the suite: these checks hold the Dockerfile
// to the build CI does run (scripts/build.sh) and to the files it needs. test/e2e/topology.test.ts runs
// compose.yaml's roles as processes.

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

/** The Dockerfile's instructions per stage, continuation lines joined and comments dropped. */
function dockerStages(): Map<string, string[]> {
  const instructions = read('Dockerfile')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages = new Map<string, string[]>();
  let current: string[] = [];
  for (const instruction of instructions) {
    const stage = /^FROM \S+ AS (\S+)$/i.exec(instruction);
    if (stage) {
      current = [instruction];
      stages.set(stage[1]!, current);
    } else current.push(instruction);
  }
  return stages;
}

describe('Dockerfile', () => {
  const stages = dockerStages();
  const build = stages.get('build') ?? [];
  const runtime = stages.get('runtime') ?? [];

  it('builds with the native toolchain by running scripts/build.sh --production, as CI runs it', () => {
    expect([...stages.keys()]).toEqual(['build', 'runtime']);
    expect(build.find((i) => i.startsWith('RUN apt-get'))).toMatch(/install .*python3 make g\+\+/);
    expect(build.at(-1)).toBe('RUN scripts/build.sh --production');
    // The same build, SQLite's C optimised less (-O1) to halve its compile time.
    expect(read('.ci/run')).toMatch(/^CFLAGS="\$\{CFLAGS:--O1\}" scripts\/build\.sh$/m);
    expect(read('.ci/run')).not.toMatch(/^npm ci/m);
  });

  it('copies into the build stage every file the build reads, none excluded by .dockerignore', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    const sources = build
      .filter((i) => i.startsWith('COPY '))
      .flatMap((i) => i.split(/\s+/).slice(1, -1))
      .map((source) => source.replace(/\/$/, ''));
    for (const source of sources) {
      expect(existsSync(path.join(PROJECT_ROOT, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source.split('/')[0]);
    }
    const { include } = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    for (const folder of include) expect(sources, folder).toContain(folder);
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json']));
  });

  it('runs the compiled server on slim Node 22 as a non-root user, with a health check and a data volume', () => {
    expect(runtime[0]).toMatch(/^FROM node:22-\S*slim AS runtime$/);
    expect(runtime).toContain('USER node');
    expect(runtime).toContain('VOLUME /data');
    expect(runtime.find((i) => i.startsWith('HEALTHCHECK'))).toMatch(
      /CMD \["node", "scripts\/healthcheck\.mjs"\]$/,
    );
    expect(runtime.at(-1)).toBe('CMD ["node", "dist/src/main.js"]');
    expect(runtime).not.toContainEqual(
      expect.stringMatching(/^COPY (?!--from=build )(?!scripts\/healthcheck)/),
    );
  });

  it('exposes the port compose.yaml publishes the API instances from', () => {
    const exposed = runtime.find((i) => i.startsWith('EXPOSE '))?.split(' ')[1];
    const compose = parse(read('compose.yaml'), { merge: true }) as {
      services: Record<string, { ports?: string[] }>;
    };
    const published = Object.values(compose.services).flatMap((s) => s.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const mapping of published) expect(mapping.split(':').at(-1)).toBe(exposed);
  });
});

describe('the image and compose.yaml, as the README describes them', () => {
  interface ComposeService {
    environment?: Record<string, string>;
    depends_on?: Record<string, unknown>;
  }
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const apiServices = Object.entries(compose.services).filter(([, s]) => s.environment?.['ROLES'] === 'api');

  it('creates /data for the node user only (0700), as the README says', () => {
    const runtime = dockerStages().get('runtime') ?? [];
    const made = runtime.find((i) => i.startsWith('RUN ') && /\bmkdir\b.*\/data\b/.test(i));
    expect(made).toBeDefined();
    expect(made).toMatch(/mkdir -m 0?700 \/data\b|chmod 0?700 \/data\b/);
    expect(made).toContain('chown node:node /data');
    expect(read('README.md')).toContain('0700');
  });

  it('shares the rate limits of the API instances through one Redis', () => {
    expect(apiServices.length).toBeGreaterThan(1);
    expect(compose.services['redis']).toBeDefined();
    for (const [name, service] of apiServices) {
      expect(service.environment?.['REDIS_URL'], name).toMatch(/^redis:\/\/redis:6379\b/);
      expect(Object.keys(service.depends_on ?? {}), name).toContain('redis');
    }
  });

  it('names in .env.example every variable compose.yaml takes from .env', () => {
    const example = read('.env.example');
    const required = [...read('compose.yaml').matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!);
    expect(required).toContain('POSTGRES_PASSWORD');
    for (const name of new Set(required)) expect(example, name).toContain(name);
  });
});

describe('scripts/healthcheck.mjs', () => {
  const healthcheck = (env: Record<string, string>) =>
    run(process.execPath, ['scripts/healthcheck.mjs'], { ROLES: undefined, PORT: undefined, ...env });

  it('fails when the listener of the role does not answer', async () => {
    expect((await healthcheck({ ROLES: 'api', HOST: '127.0.0.1', PORT: '9' })).code).toBe(1);
    expect((await healthcheck({ ROLES: 'watcher', METRICS_HOST: '0.0.0.0', METRICS_PORT: '9' })).code).toBe(
      1,
    );
  });

  it('passes a process with neither API nor metrics listener: there is nothing to ask', async () => {
    const result = await healthcheck({ ROLES: 'deliverer', METRICS_PORT: 'off' });
    expect(result.code, result.stdout).toBe(0);
  });
});
