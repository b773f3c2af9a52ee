import { defineConfig } from 'vitest/config';

// One runner for the whole workspace. Tests import workspace packages from source
// (the "source" export condition), so `vitest` never needs a prior build.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'scripts/**/*.test.ts',
      'bench/test/**/*.test.ts',
    ],
    // A temporary directory per run, removed at its end (scripts/test-tmpdir.ts).
    globalSetup: ['scripts/test-tmpdir.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: test files that start servers or databases run two at a time. Files named
    // *.alone.test.ts load the whole machine (several nodes under a steady rate, with latency
    // bounds): `npm run test:unit` leaves them out here and runs them by themselves after.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
