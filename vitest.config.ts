import { defineConfig } from 'vitest/config';

// Tests that touch the store run twice: once on SQLite, once on Postgres.
const storeTests = ['test/api/**/*.test.ts', 'test/store/**/*.test.ts'];

export default defineConfig({
  test: {
    // Most test files wait on processes, devnets and the network more than they compute: two at once keep
    // two cores busy (vitest's default, one fewer than the cores, runs one file at a time here); three
    // loaded the machine enough to push timing-bound tests past their limits.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'test/unit/**/*.test.ts',
            'test/devnets/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/chains/**/*.test.ts',
          ],
        },
      },
      { extends: true, test: { name: 'sqlite', include: storeTests, env: { SWITCHYARD_TEST_DB: 'sqlite' } } },
      {
        extends: true,
        test: { name: 'postgres', include: storeTests, env: { SWITCHYARD_TEST_DB: 'postgres' } },
      },
    ],
  },
});
