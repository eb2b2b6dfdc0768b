import { defineConfig } from 'vitest/config';

// Tests that touch the store run on SQLite; those whose SQL differs between the databases (accounts,
// quotas, lockouts, custody, sends and nonces, webhooks, and every store module) run on Postgres too,
// with the fuzz suite for what only Postgres refuses (NUL bytes, sizes). The rest (the OpenAPI
// document, readiness, logs, HTTP framing, builds) runs the same code on either and runs once.
const storeTests = ['test/api/**/*.test.ts', 'test/store/**/*.test.ts'];
const postgresApiTests = [
  'account-changes',
  'auth',
  'bitcoin-concurrent-sends',
  'dashboard-reads',
  'dashboard-session',
  'evm',
  'evm-reconcile',
  'evm-token-sends',
  'fuzz',
  'hardening',
  'idempotency',
  'password-throttle',
  'paymaster',
  'quotas',
  'rate-limits',
  'tron',
  'webhooks-bitcoin-reorg',
  'webhooks-evm',
  'webhooks-tron',
  'webhooks-wake',
];
const postgresTests = [
  'test/store/**/*.test.ts',
  ...postgresApiTests.map((name) => `test/api/${name}.test.ts`),
];
// Serves the devnets a project's test files share: each started once per run, when a file first asks.
const sharedDevnets = ['test/global-setup/shared-devnets.ts'];

export default defineConfig({
  test: {
    // Most test files wait on processes, devnets, timers and the network more than they compute: two at once
    // keep the two cores busy. Three were slower (each worker loads its own module cache, and the timing of
    // the rest stretched with the load).
    maxWorkers: 2,
    // The files of a worker share one module cache: loading the gateway's modules again for every file cost
    // a third of the run. Each file builds its own gateway, store and devnets, so nothing else is shared.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // Pure code: no devnet, no database server, no child process.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The devnets themselves (devnets/), against their clients.
      { extends: true, test: { name: 'devnets', include: ['test/devnets/**/*.test.ts'] } },
      // Each family's chain layer (src/chains/) against its devnet.
      { extends: true, test: { name: 'chains', include: ['test/chains/**/*.test.ts'] } },
      // The gateway as processes: production start, sandbox, crashes, topology.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup/build.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: storeTests,
          globalSetup: sharedDevnets,
          env: { SWITCHYARD_TEST_DB: 'sqlite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: postgresTests,
          globalSetup: sharedDevnets,
          env: { SWITCHYARD_TEST_DB: 'postgres' },
        },
      },
      // Faults survived (test/fault): roles killed, nodes misbehaving behind a proxy, Postgres restarted. The
      // short form runs in every run; `FAULT_FULL=1 npm run test:fault` runs the long one.
      {
        extends: true,
        test: {
          name: 'fault',
          include: ['test/fault/**/*.test.ts'],
          globalSetup: ['test/global-setup/build.ts'],
          env: { SWITCHYARD_TEST_DB: 'postgres' },
        },
      },
      // One table of scenarios for every family and chain (test/conformance), on the shared devnets. On
      // SQLite only: every route and store path it takes runs on Postgres in the postgres project.
      {
        extends: true,
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          globalSetup: sharedDevnets,
          env: { SWITCHYARD_TEST_DB: 'sqlite' },
        },
      },
    ],
  },
});
