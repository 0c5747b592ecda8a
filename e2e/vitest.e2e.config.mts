import { defineConfig } from 'vitest/config';

// The packaged app's e2e specs (Playwright `_electron`): they need an Electron binary, which the
// build machines cannot download, and skip with the reason where there is none. Run them with
// `npm run test:e2e` (scripts/e2e.mjs), which puts them under xvfb-run where there is no display.
export default defineConfig({
  test: { include: ['e2e/**/*.e2e.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: 1 },
});
