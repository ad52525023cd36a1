/**
 * The test suite's configuration: two projects, `unit` (in-process tests of the library) and `e2e`
 * (tests that run the built CLI, the bundled driver or Action, or `bash` recipes as separate
 * processes); `npm test` runs both, `npm run test:unit` / `npm run test:e2e` one of them.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/** Folders whose tests all run separate processes (the built CLI, the bundles, the docs' recipes). */
const E2E_FOLDERS = ['test/e2e/**/*.test.ts', 'test/docs/**/*.test.ts'];

/**
 * Tests outside those folders that spawn the built CLI (`bin/gcpatch.js`), the driver bundle
 * (`driver/dist`) or hook scripts as child processes. A file not listed here runs in `unit`, so a
 * renamed file is never left out of `npm test`.
 */
const SPAWNING_TESTS = [
  'test/driver/entry.test.ts',
  'test/driver/launch.test.ts',
  'test/driver-service/fixtures.test.ts',
  'test/driver-service/protocol.test.ts',
  'test/driver-setup/hooks.test.ts',
  'test/driver-setup/install.test.ts',
  'test/package-audit/binding.test.ts',
  'test/package-audit/hardening.test.ts',
  'test/refactor/old-store.test.ts',
  'test/transaction/cross-kind.test.ts',
  'test/transaction/lock.test.ts',
  'test/verify-pr/report-text.test.ts',
  'test/verify-pr/store-entry-limits.test.ts',
  'test/workspace/manifest-pack.test.ts',
];
// A listed file that was moved or renamed would silently lose its project: refuse to run instead.
for (const file of SPAWNING_TESTS) {
  if (!existsSync(file)) throw new Error(`vitest.config.ts lists ${file} in SPAWNING_TESTS, but it does not exist`);
}

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores, two forks (vitest's default would be one, cores - 1): on six of the slowest files a
    // third fork was slower, its child processes competing for the same two cores.
    maxWorkers: 2,
    globalSetup: ['./test/helpers/temp-root.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...E2E_FOLDERS, ...SPAWNING_TESTS] },
      },
      {
        extends: true,
        // Concurrent tests (the docs' recipes) run three at a time: each is a tree of processes.
        // A longer timeout: a test that starts dozens of processes waits for a shared, busy machine.
        test: { name: 'e2e', include: [...E2E_FOLDERS, ...SPAWNING_TESTS], maxConcurrency: 3, testTimeout: 300_000 },
      },
    ],
  },
});
