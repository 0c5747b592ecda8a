import { defineConfig } from 'vitest/config';

// Tests drive real tmux servers and real processes; two cores are shared with whatever else
// runs, so keep parallelism modest and timeouts generous.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/support/closing-line-reporter.ts'],
  },
});
