import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { claudeAppWorld, type ClaudeAppWorld } from './claude-world';
import { strictUrl } from './helpers';
import { RECORD_NOTIFICATIONS } from './notifications';

const missing = chromiumMissing();
const SHOTS = '/tmp/i35a-shots';

/**
 * The browser window tells (issue 35, part 1), in real Chromium over the serve host with a real
 * engine: a real Claude Code seat at a real permission prompt (the fake model server asks for a
 * Bash call) sets the title, badges the favicon and raises one notification, none while its pane
 * has the focus; the title comes back once it is answered. The browser's permission is granted by
 * the test's context, and asked by the page only from the bell.
 */
describe.skipIf(!!missing)('a Claude seat waiting tells a browser window', () => {
  let w: ClaudeAppWorld;
  let chrome: Chrome;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    w = await claudeAppWorld();
    ({ chrome, page, errors } = await openWindow(strictUrl(w.serve), {
      viewport: { width: 1280, height: 800 },
      initScripts: [RECORD_NOTIFICATIONS],
    }));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  }, 60_000);

  const pane = () => w.engine.store.sessions.live('lead@act')!.paneId;
  const screen = () => w.world.tmux.capture(pane());
  const row = (seat: string, state: string) => page.locator(`[data-seat-row="${seat}"][data-state="${state}"]`);
  const notes = () => page.evaluate(() => window.__notes.map(({ title, body }) => ({ title, body })));
  const favicon = () => page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href ?? '');
  const ask = async (cmd: string) => {
    await row('lead@act', 'idle').waitFor({ timeout: 60_000 });
    w.world.tmux.run(['send-keys', '-t', pane(), '-l', `RUN: ${cmd}`]);
    w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    await waitFor(() => screen().includes('Do you want to proceed?'), {
      timeoutMs: 30_000,
      intervalMs: 25,
      what: 'permission prompt on screen',
    });
    return Date.now();
  };
  const approve = async () => {
    await page.locator('[data-prompt="lead@act"]').getByRole('button', { name: 'Approve', exact: true }).click();
    await waitFor(() => screen().includes('ACK tool result'), { timeoutMs: 30_000, what: 'the turn after approval' });
  };

  it('nothing is asked on load; the bell asks once, then turns notifications off and on', async () => {
    await row('lead@act', 'idle').waitFor({ timeout: 60_000 });
    const bell = page.locator('[data-notify]');
    expect(await bell.getAttribute('aria-label')).toBe('Turn on notifications');
    expect(await page.evaluate(() => window.__asked)).toBe(0);
    expect(await page.title()).toBe('Rigdesk');
    await page.screenshot({ path: join(SHOTS, 'bell-off-1280x800.png') });
    await chrome.browser.grantPermissions(['notifications'], { origin: new URL(w.serve.url).origin });
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('button', { name: 'Turn off notifications' }).waitFor();
    expect(await page.evaluate(() => window.__asked)).toBe(1);
    // Off and on again from the bell: the browser is not asked again.
    await page.getByRole('button', { name: 'Turn off notifications' }).click();
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('button', { name: 'Turn off notifications' }).waitFor();
    expect(await page.evaluate(() => window.__asked)).toBe(1);
  });

  it('the first screen of a never-saved layout holds the rig seats, not empty slots', async () => {
    const slots = await page
      .locator('[data-pane]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-slot')}:${e.getAttribute('data-pane')}`));
    // Both seats, in the attention order of that moment (Claude may still read unknown while it starts).
    expect(slots.map((x) => x.replace(/^\d:/, '')).sort()).toEqual(['lead@act', 'sh@act']);
    expect(slots.map((x) => x.slice(0, 2))).toEqual(['1:', '2:']);
  });

  it('a prompt on a seat nobody looks at: "(1) Rigdesk" within 2 s, a badge, and one notification naming the seat', async () => {
    // The person looks at the shell seat's pane, not at Claude's.
    await page.locator('[data-pane="sh@act"] [data-testid=terminal]').click();
    await page.locator('[data-pane="sh@act"].focused').waitFor();
    const plain = await favicon();
    const t0 = await ask('touch notified.txt');
    await page.waitForFunction(() => document.title.startsWith('(1)'), undefined, { timeout: 10_000 });
    const took = Date.now() - t0;
    process.stdout.write(`prompt on screen → title "(1) Rigdesk" in ${took} ms\n`);
    expect(took).toBeLessThan(2000);
    expect(await page.title()).toBe('(1) Rigdesk');
    expect(await favicon()).not.toBe(plain);
    expect(decodeURIComponent(await favicon())).toContain('>1</text>');
    await waitFor(async () => (await notes()).length === 1, { what: 'one notification', timeoutMs: 5000 });
    const [n] = await notes();
    expect(n!.title).toBe('lead@act');
    expect(n!.body).toMatch(/^permission: Bash\n.*touch notified\.txt/);
    await page.screenshot({ path: join(SHOTS, 'waiting-1280x800.png') });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: join(SHOTS, 'waiting-1920x1080.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    // A headless window draws no tab: the title and the icon as a tab would show them, to look at.
    const tab = await chrome.browser.newPage();
    await tab.setContent(
      `<div style="font:14px sans-serif;display:flex;gap:8px;align-items:center;padding:8px">` +
        `<img src="${await favicon()}" width="16"><span>${await page.title()}</span>` +
        `<img src="${await favicon()}" width="64"><img src="${plain}" width="64"></div>`,
    );
    await tab.screenshot({ path: join(SHOTS, 'tab-title-favicon.png'), clip: { x: 0, y: 0, width: 360, height: 90 } });
    await tab.close();
    // The seat still waits: nothing repeats.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await notes()).toHaveLength(1);
  });

  it("the notification's click focuses the seat's pane", async () => {
    await page.evaluate(() => window.__notes[0]!.n.onclick?.());
    await page.locator('[data-pane="lead@act"].focused').waitFor({ timeout: 5000 });
  });

  it('once answered the title is "Rigdesk" again and the favicon plain', async () => {
    await approve();
    await page.waitForFunction(() => document.title === 'Rigdesk', undefined, { timeout: 10_000 });
    expect(decodeURIComponent(await favicon())).not.toContain('<circle');
  });

  it('no notification for a seat whose pane has the focus in a visible window; the title still counts it', async () => {
    await page.locator('[data-pane="lead@act"].focused').waitFor();
    expect(await page.evaluate(() => document.visibilityState)).toBe('visible');
    await ask('touch watched.txt');
    await page.waitForFunction(() => document.title.startsWith('(1)'), undefined, { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await notes()).toHaveLength(1);
    await approve();
    await page.waitForFunction(() => document.title === 'Rigdesk', undefined, { timeout: 10_000 });
    expect(errors).toEqual([]);
  });
});
