import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electronBinary, isPackagedApp } from '../scripts/desktop.mjs';
import { makeClaudeFixture } from '../test/agents/claude-fixture';
import { closedPort, type FakeModelServer, startFakeModelServer } from '../test/agents/fake-model-server';
import { REPO, RigWorld } from '../test/support/rig';
import { waitFor } from '../test/support/tmux';

/**
 * The desktop app under Playwright's `_electron`, on a rig of a real Claude Code seat (against the
 * local fake model server) and a shell seat: the window opens on the rig, a seat's terminal goes
 * live, a second start with a deep link focuses its seat, and the tray counts the seat that needs
 * input. Runs wherever an Electron binary is (RIGDESK_ELECTRON: a binary or a packaged app's
 * executable, else the electron package's own) and a display is (`npm run test:e2e` runs it under
 * xvfb-run where there is none). Without a binary it says why and skips; under CI with a binary it
 * never skips.
 */
const bin = electronBinary();
const display = process.platform !== 'linux' || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY;
const why = !bin.path
  ? bin.why
  : !display
    ? 'no display (run it through `npm run test:e2e`, which uses xvfb-run)'
    : undefined;
if (why && bin.path && process.env.CI) throw new Error(`packaged-app e2e cannot run under CI: ${why}`);
if (why) process.stdout.write(`skipped: packaged-app e2e: ${why}\n`);

/** A packaged app runs its own bundle; a bare Electron binary is given the built main script. */
const appArgs = (links: string[]) =>
  bin.path && isPackagedApp(bin.path) ? links : [join(REPO, 'out', 'main', 'index.js'), ...links];

describe.skipIf(!!why)('packaged app (Playwright _electron)', () => {
  let world: RigWorld;
  let model: FakeModelServer;
  let app: ElectronApplication;
  beforeAll(async () => {
    model = await startFakeModelServer({});
    world = new RigWorld();
    const work = join(world.root, 'work');
    mkdirSync(work, { recursive: true });
    const fx = makeClaudeFixture({
      serverUrl: model.url,
      closedPort: await closedPort(),
      trustedCwds: [realpathSync(work)],
      root: join(world.root, 'claude'),
    });
    const env = Object.entries(fx.env)
      .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
      .join('\n');
    const yaml = `name: act\npods:\n  - id: p\n    members:\n      - id: lead\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}\n      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }\n`;
    const up = await world.cli(['up', world.spec('act.yaml', yaml), '--json']);
    expect(up.code, up.stderr).toBe(0);
    app = await electron.launch({
      executablePath: bin.path!,
      args: appArgs(['rigdesk://seat/act/sh']),
      env: world.env as Record<string, string>,
    });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await world?.shutdown();
    await model?.close();
  }, 60_000);

  it('opens the hardened window on the rig; the linked seat’s terminal goes live', async () => {
    const page = await app.firstWindow();
    await page.locator('[data-pane="sh@act"].focused [data-terminal-state="live"]').waitFor({ timeout: 30_000 });
    // getLastWebPreferences is Electron's, undeclared in its types: what the window really got.
    const prefs = await app.evaluate(({ BrowserWindow }) => {
      const wc = BrowserWindow.getAllWindows()[0]!.webContents as Electron.WebContents & {
        getLastWebPreferences(): Record<string, unknown>;
      };
      return wc.getLastWebPreferences();
    });
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    // The bundle comes from the app's own scheme, never file://, under the window's CSP.
    expect(page.url()).toMatch(/^rigdesk-app:\/\/renderer\/index\.html/);
    expect(await page.evaluate(() => typeof (window as { require?: unknown }).require)).toBe('undefined');
  });

  it('a second start with a deep link hands it to the running app, which focuses that seat', async () => {
    const page = await app.firstWindow();
    const second = spawn(bin.path!, appArgs(['rigdesk://seat/act/lead']), { env: world.env, stdio: 'ignore' });
    const code = await new Promise((r) => second.on('exit', r));
    expect(code).toBe(0);
    await page.locator('[data-pane="lead@act"].focused').waitFor({ timeout: 30_000 });
  });

  it('the tray counts the seat that needs input', async () => {
    const tray = () =>
      app.evaluate(async () => {
        // The entry's export (src/main/index.ts): the started shell, whose tray says what it shows.
        const entry = process.mainModule?.exports as {
          started: Promise<{ tray?: { shown(): { count: number; tooltip: string } | undefined } } | undefined>;
        };
        return (await entry.started)?.tray?.shown();
      });
    await waitFor(async () => (await tray())?.count === 0, { timeoutMs: 60_000, what: 'the tray at rest' });
    const send = await world.cli(['send', 'lead@act', 'RUN: touch from-the-e2e.txt', '--wait-for-idle', '60']);
    expect(send.code, send.stderr).toBe(0);
    const shown = await waitFor(async () => ((await tray())?.count === 1 ? tray() : undefined), {
      timeoutMs: 60_000,
      what: 'the tray to count the permission prompt',
    });
    expect(shown?.tooltip).toMatch(/1 seat\(s\) need input \(lead@act\)/);
  });
});
