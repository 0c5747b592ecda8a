import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, RigWorld, shellRigYaml } from '../test/support/rig';

/**
 * The packaged desktop app under Playwright's `_electron`: the window opens on the rig, a seat's
 * terminal goes live, and a second launch with a deep link focuses that seat.
 * Runs wherever an Electron binary is installed (RIGDESK_ELECTRON, or the electron package's
 * downloaded binary); elsewhere it says it was skipped and why.
 */
function electronBinary(): { path?: string; why?: string } {
  if (process.env.RIGDESK_ELECTRON)
    return existsSync(process.env.RIGDESK_ELECTRON)
      ? { path: process.env.RIGDESK_ELECTRON }
      : { why: `RIGDESK_ELECTRON=${process.env.RIGDESK_ELECTRON} does not exist` };
  // Read the package's path.txt rather than require('electron'): requiring it starts a download.
  const pkg = join(REPO, 'node_modules', 'electron');
  const rel = existsSync(join(pkg, 'path.txt')) ? readFileSync(join(pkg, 'path.txt'), 'utf8').trim() : undefined;
  const p = rel ? join(pkg, 'dist', rel) : undefined;
  if (p && existsSync(p)) return { path: p };
  return {
    why: `no Electron binary installed (the electron package downloads it on first use, and this machine cannot reach the download host); set RIGDESK_ELECTRON to one`,
  };
}

const bin = electronBinary();
if (!bin.path) process.stdout.write(`skipped: packaged-app e2e: ${bin.why}\n`);

describe.skipIf(!bin.path)('packaged app (Playwright _electron)', () => {
  const world = new RigWorld();
  afterAll(() => world.cleanup());

  it('opens the window on the rig; a seat link focuses that seat', async () => {
    const spec = world.spec('duo.yaml', shellRigYaml('duo', ['lead', 'worker']));
    expect((await world.cli(['up', spec, '--json'])).code).toBe(0);
    const app = await electron.launch({
      executablePath: bin.path,
      args: [join(REPO, 'out', 'main', 'index.js'), 'rigdesk://seat/duo/worker'],
      env: world.env as Record<string, string>,
    });
    try {
      const page = await app.firstWindow();
      await page.locator('[data-pane="worker@duo"].focused [data-terminal-state="live"]').waitFor({ timeout: 30_000 });
      const prefs = await app.evaluate(({ BrowserWindow }) =>
        (
          BrowserWindow.getAllWindows()[0]!.webContents as unknown as {
            getLastWebPreferences(): Record<string, unknown>;
          }
        ).getLastWebPreferences(),
      );
      expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
      // The bundle comes from the app's own scheme, never file://, under the window's CSP.
      expect(page.url()).toMatch(/^rigdesk-app:\/\/renderer\/index\.html/);
      expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
    } finally {
      await app.close();
    }
  });
});
