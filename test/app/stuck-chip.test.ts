import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();

/**
 * Issue 32: a stuck tmux server on Rigdesk's socket locks a person out of every seat; the window's
 * connection chip names it (its pid) and the next step, within 5 s of it getting stuck. The server
 * is stopped with SIGSTOP (a real server that accepts and never answers); real Chromium, real
 * engine with its activity monitor, as `rigdesk serve` runs.
 */
describe.skipIf(!!missing)('the connection chip and a stuck tmux server (real Chromium)', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let serverPid = 0;

  beforeAll(async () => {
    w = await appWorld('stk', ['a', 'b'], { monitor: true });
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(strictUrl(w.serve));
    serverPid = Number(w.world.tmux.run(['display-message', '-p', '-t', 'a@stk', '#{pid}']).trim());
  }, 120_000);
  afterAll(async () => {
    if (serverPid) {
      try {
        process.kill(serverPid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await chrome?.close();
    await w?.cleanup();
  }, 60_000);

  it('names the stopped server with its pid and `rigdesk doctor --fix` within 5 s', async () => {
    await page.waitForFunction(
      () => [...document.querySelectorAll('[data-seat-row]')].every((b) => b.getAttribute('data-state') === 'idle'),
      undefined,
      { timeout: 20_000 },
    );
    // A quiet rig: the window's seat polls have slowed to their resting pace before the server stops.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await page.getByTestId('connection').textContent()).toBe('ws open');
    process.kill(serverPid, 'SIGSTOP');
    const t0 = Date.now();
    const chip = page.locator(`[data-testid="connection"][data-stuck="${serverPid}"]`);
    await chip.waitFor({ timeout: 15_000 });
    const took = Date.now() - t0;
    console.info(`[stuck chip] shown ${took} ms after SIGSTOP`);
    expect(await chip.textContent()).toContain(`pid ${serverPid}`);
    expect(await chip.getAttribute('title')).toContain('rigdesk doctor --fix');
    const bar = page.getByRole('alert').filter({ hasText: 'TMUX_SERVER_STUCK' });
    expect(await bar.getAttribute('data-stuck')).toBe(String(serverPid));
    const said = await bar.textContent();
    expect(said).toContain(`pid ${serverPid}`);
    expect(said).toContain(w.world.tmux.socketName);
    expect(said).toContain('rigdesk doctor --fix');
    expect(await chip.isVisible()).toBe(true);
    expect(await bar.isVisible()).toBe(true);
    if (process.env.RIGDESK_SHOTS) {
      await page.screenshot({ path: join(process.env.RIGDESK_SHOTS, 'stuck-1280.png') });
      await page.setViewportSize({ width: 1920, height: 1080 });
      await page.screenshot({ path: join(process.env.RIGDESK_SHOTS, 'stuck-1920.png') });
    }
    expect(took).toBeLessThan(5000);
  }, 60_000);
});
