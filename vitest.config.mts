import { defineConfig } from 'vitest/config';

/**
 * The real agent CLIs that start slowest (OpenCode and what is built on it, which boot a Bun
 * binary and a server; Gemini and Qwen, large Node bundles). Beside another such file on two
 * cores their own fixed start limits ran out (omo gives its server 5 s) and replies came late, so
 * they run one at a time, after the rest, with the machine to themselves.
 */
const SOLO = [
  'test/journeys/gemini.test.ts',
  'test/journeys/gemini-taking-up.test.ts',
  'test/journeys/opencode.test.ts',
  'test/journeys/omo.test.ts',
  'test/journeys/omp.test.ts',
  'test/journeys/qwen.test.ts',
  'test/journeys/usage-more.test.ts',
  'test/hosts/real-agents-more.test.ts',
  'test/hosts/omp-omo-agents.test.ts',
  'test/agents/omp-real.test.ts',
  'test/agents/opencode-real.test.ts',
];

// Tests drive real tmux servers and real processes; two cores are shared with whatever else
// runs, so keep parallelism modest and timeouts generous.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/support/closing-line-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: SOLO } },
      {
        extends: true,
        test: { name: 'solo', include: SOLO, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
