/**
 * `rigdesk doctor` and the window know omp and omo: each is found where a seat would find it, and
 * a missing one is named with how to install it. omo needs two programs, OpenCode (what its seat
 * runs) and omo's own CLI (whose package holds the plugin): OpenCode alone is not omo.
 *
 * The window is the real renderer in Chromium over `rigdesk serve`'s host, its "New rig" form
 * listing the agents this machine has, as the engine finds them on its PATH.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../app/chromium';
import { RENDERER_DIR, strictUrl } from '../app/helpers';
import { REPO, RigWorld } from '../support/rig';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { omo, omp } from '../../src/main/engine/runtimes';

/** How doctor and the New rig form say to install each (the adapters' installHint). */
const INSTALL_HINTS = { omp: omp.installHint, omo: omo.installHint };

const BIN = join(REPO, 'node_modules', '.bin');

/** A PATH with the system's programs and, of the project's CLIs, only those named. */
function pathWith(dir: string, programs: string[]): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const p of programs) symlinkSync(join(BIN, p), join(bin, p));
  return `${bin}:/usr/bin:/bin`;
}

describe('doctor and the window know omp and omo', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rd-omp-omo-path-'));
  const worlds: RigWorld[] = [];
  afterAll(() => {
    for (const w of worlds) w.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('doctor: omp and omo missing, each with how to install it; OpenCode without omo is not omo, omp without bun is not omp; with all there, both are found', async () => {
    const w = new RigWorld();
    worlds.push(w);
    const none = await w.cli(['doctor', '--json'], { PATH: pathWith(join(tmp, 'none'), ['opencode']) });
    expect(none.code, none.stdout).toBe(0);
    const checks = Object.fromEntries(none.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(checks['omp CLI']).toMatchObject({ ok: false, detail: 'omp, bun not on PATH', hint: INSTALL_HINTS.omp });
    expect(INSTALL_HINTS.omp).toContain('@oh-my-pi/pi-coding-agent');
    expect(checks['omo CLI']).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^omo not on PATH \(opencode is .*\/opencode\)$/),
      hint: INSTALL_HINTS.omo,
    });
    expect(INSTALL_HINTS.omo).toContain('oh-my-opencode');
    expect(checks['opencode CLI']).toMatchObject({ ok: true });

    // omp's CLI is a bun script: found without bun, it is named as not startable.
    const noBun = await w.cli(['doctor', '--json'], { PATH: pathWith(join(tmp, 'no-bun'), ['omp']) });
    const lacking = Object.fromEntries(noBun.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(lacking['omp CLI']).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^bun not on PATH \(omp is .*\/omp\)$/),
      hint: INSTALL_HINTS.omp,
    });
    expect(INSTALL_HINTS.omp).toContain('bun');

    const all = await w.cli(['doctor', '--json'], {
      PATH: pathWith(join(tmp, 'all'), ['opencode', 'omo', 'omp', 'bun']),
    });
    const found = Object.fromEntries(all.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(found['omp CLI']).toMatchObject({ ok: true, detail: expect.stringMatching(/\/omp$/) });
    expect(found['omo CLI']).toMatchObject({ ok: true, detail: expect.stringMatching(/\/opencode$/) });
  });

  const missing = chromiumMissing();
  it.skipIf(!!missing)(
    'the window\'s "New rig" form offers omp and omo where they are found, and says how to install them where not',
    async () => {
      const serves: ServeHandle[] = [];
      const chrome = await launchChromium({ width: 1200, height: 900 });
      try {
        const rowsWith = async (path: string) => {
          const w = new RigWorld();
          worlds.push(w);
          w.env.PATH = path;
          const serve = await startServe({ engine: w.engine(), port: 0, staticDir: RENDERER_DIR });
          serves.push(serve);
          const page: Page = await chrome.browser.newPage();
          await page.goto(strictUrl(serve));
          await page.getByRole('button', { name: 'New rig…' }).click();
          const dialog = page.getByRole('dialog', { name: 'New rig' });
          const row = (runtime: string) =>
            dialog.locator('label').filter({ has: page.locator(`input[value="${runtime}"]`) });
          const out: Record<string, { text: string; enabled: boolean }> = {};
          for (const r of ['omp', 'omo', 'opencode']) {
            await row(r).waitFor();
            out[r] = {
              text: (await row(r).textContent()) ?? '',
              enabled: await row(r).locator('input').isEnabled(),
            };
          }
          await page.close();
          return out;
        };
        const without = await rowsWith(pathWith(join(tmp, 'win-none'), ['opencode']));
        expect(without.omp).toEqual({ text: `ompnot installed: ${INSTALL_HINTS.omp}`, enabled: false });
        expect(without.omo).toEqual({ text: `omonot installed: ${INSTALL_HINTS.omo}`, enabled: false });
        expect(without.opencode?.enabled).toBe(true);
        const withBoth = await rowsWith(pathWith(join(tmp, 'win-all'), ['opencode', 'omo', 'omp', 'bun']));
        expect(withBoth.omp).toMatchObject({ enabled: true, text: expect.stringMatching(/^omp\/.*\/omp$/) });
        expect(withBoth.omo).toMatchObject({ enabled: true, text: expect.stringMatching(/^omo\/.*\/opencode$/) });
      } finally {
        for (const s of serves) await s.close();
        await chrome.close();
      }
    },
    120_000,
  );
});
