import { defineConfig } from 'vitest/config';

// Benches are not tests: they live outside `test/**/*.test.ts`, run one file at a time (one fork,
// no parallel workers, so two benches never compete for the two shared cores) and may run long.
export default defineConfig({
  test: {
    include: ['bench/**/*.bench.ts'],
    testTimeout: 30 * 60_000,
    hookTimeout: 5 * 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
  },
});
