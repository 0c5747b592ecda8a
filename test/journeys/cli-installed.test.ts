/**
 * The journeys need the real CLIs. A missing one must not make its journeys vanish as "skipped":
 * `requireCli` (journeys/support.ts) fails every test of a journey whose CLI is missing, with a
 * message that says how to install it. This file checks that message and the pinned installs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIS, cliProblem, type AgentRuntime } from './support';

const RUNTIMES = Object.keys(CLIS) as AgentRuntime[];

describe('the real CLIs the journeys run', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rd-cli-check-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  for (const r of RUNTIMES) {
    it(`${CLIS[r].name} is installed at its pinned version (${CLIS[r].pkg}@${CLIS[r].version})`, () => {
      expect(cliProblem(r)).toBeUndefined();
    });

    it(`a missing ${CLIS[r].name} is reported with how to install it`, () => {
      const msg = cliProblem(r, { bin: join(tmp, 'nowhere', r) });
      expect(msg).toContain(`The ${CLIS[r].name} CLI (${CLIS[r].pkg}) is not installed`);
      expect(msg).toContain('npm install');
      expect(msg).toContain(`${CLIS[r].pkg}@${CLIS[r].version}`);
    });

    it(`another version of ${CLIS[r].name} is reported as not the pinned one`, () => {
      const pkgDir = join(tmp, r, 'pkg');
      mkdirSync(pkgDir, { recursive: true });
      writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: CLIS[r].pkg, version: '0.0.1' }));
      const msg = cliProblem(r, { pkgDir });
      expect(msg).toContain(`found version 0.0.1, but these tests pin ${CLIS[r].version}`);
      expect(msg).toContain('npm install');
    });
  }
});
