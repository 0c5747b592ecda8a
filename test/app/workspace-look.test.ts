import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl, twoPodRigYaml } from './helpers';

const missing = chromiumMissing();
/** Where the screenshots go (ignored by git): open them and look. */
const SHOTS = join(REPO, '.tmp', 'window');

/**
 * A 20-seat rig in two pods, in real Chromium at the two sizes a person supervises from: every
 * seat's row with its state, the counts adding up to 20; screenshots written for a person to look at.
 */
describe.skipIf(!!missing)('the workspace with a 20-seat rig', () => {
  let w: AppWorld;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    w = await appWorld('crew', [], { yaml: twoPodRigYaml('crew', 20), monitor: true });
  }, 120_000);
  afterAll(async () => w?.cleanup());

  const counts = async (page: Page): Promise<Record<string, number>> =>
    Object.fromEntries(
      await page
        .locator('[data-count]')
        .evaluateAll((els) =>
          els.map((e): [string, number] => [
            e.getAttribute('data-count') ?? '',
            Number(e.querySelector('.num')?.textContent),
          ]),
        ),
    );

  /**
   * Nothing the person needs is cut off at this size: the top strip is one line with each count
   * still named in words, the centre keeps half the window, and each of the nine panes shows its
   * pin, magnify and actions buttons inside its own box.
   */
  const expectFits = async (page: Page, width: number) => {
    expect((await page.locator('.top-strip').boundingBox())!.height).toBeLessThanOrEqual(48);
    // No control of the strip is pushed past the window's right edge (the connection chip last).
    const pushedOff = () =>
      page
        .locator('.top-strip > *')
        .evaluateAll(
          (els, w) => els.filter((e) => e.getBoundingClientRect().right > w + 0.5).map((e) => e.className),
          width,
        );
    expect(await pushedOff()).toEqual([]);
    await expect(page.getByRole('button', { name: '20 idle' }).isVisible()).resolves.toBe(true);
    // A big rig has seats in every state: no count then hides its word as a zero, and still the
    // strip keeps every control in the window (this rig's counts, drawn as a big rig's would be).
    await page.locator('.count.zero').evaluateAll((els) => {
      for (const e of els) e.classList.remove('zero');
    });
    expect(await pushedOff()).toEqual([]);
    await expect(page.getByRole('button', { name: /needs you/ }).isVisible()).resolves.toBe(true);
    expect((await page.locator('.centre').boundingBox())!.width).toBeGreaterThanOrEqual(width / 2);
    const cut = await page.locator('[data-pane]').evaluateAll((panes) =>
      panes.flatMap((p) => {
        const box = p.getBoundingClientRect();
        return [...p.querySelectorAll('.pane-head > .icon, .pane-head .menu-wrap > .icon')]
          .filter((b) => {
            const r = b.getBoundingClientRect();
            return r.width === 0 || r.left < box.left || r.right > box.right + 0.5;
          })
          .map((b) => `${p.getAttribute('data-pane')}: ${b.getAttribute('aria-label')}`);
      }),
    );
    expect(cut).toEqual([]);
  };

  for (const [width, height] of [
    [1920, 1080],
    [1280, 800],
    [960, 600],
  ] as const) {
    it(`at ${width}x${height}: ${width === 1920 ? 'every seat visible without scrolling, ' : ''}counts add up to 20, the top strip on one line, every pane's buttons in its pane`, async () => {
      const chrome = await launchChromium({ width, height });
      const errors: string[] = [];
      try {
        const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(strictUrl(w.serve));
        await waitFor(async () => (await page.locator('[data-seat-row][data-state="idle"]').count()) === 20, {
          what: 'twenty idle rows',
          timeoutMs: 30_000,
        });
        const c = await counts(page);
        expect(Object.values(c).reduce((a, b) => a + b, 0)).toBe(20);
        expect(c.idle).toBe(20);
        if (width === 1920) {
          // Each row inside the rail's visible box and the viewport, the rail not scrolled.
          const rail = (await page.locator('.rail').boundingBox())!;
          for (const box of await page
            .locator('[data-seat-row]')
            .evaluateAll((els) =>
              els.map((e) => e.getBoundingClientRect().toJSON() as { top: number; bottom: number }),
            )) {
            expect(box.top).toBeGreaterThanOrEqual(rail.y);
            expect(box.bottom).toBeLessThanOrEqual(Math.min(rail.y + rail.height, height));
          }
          expect(await page.locator('.rail').evaluate((e) => e.scrollHeight <= e.clientHeight)).toBe(true);
        }
        // Open two seats, as a person would, and take the picture.
        await page.locator('[data-seat-row="a1@crew"]').click();
        await page.locator('[data-pane="a1@crew"] [data-terminal-state="live"]').waitFor({ timeout: 15_000 });
        await page.locator('[data-seat-row="b3@crew"]').click();
        await page.locator('[data-pane="b3@crew"] [data-terminal-state="live"]').waitFor({ timeout: 15_000 });
        await new Promise((r) => setTimeout(r, 500));
        await page.screenshot({ path: join(SHOTS, `workspace-${width}x${height}.png`) });
        // The OS set to dark: the window and its terminals follow.
        await page.emulateMedia({ colorScheme: 'dark' });
        await new Promise((r) => setTimeout(r, 300));
        await page.screenshot({ path: join(SHOTS, `workspace-${width}x${height}-dark.png`) });
        await page.emulateMedia({ colorScheme: 'light' });
        // The palette over a 3x3 grid of nine live panes (the first screen already holds a1..a4,
        // and b3 took the focused slot: a1's).
        await page.keyboard.press('Control+Shift+4');
        await page.locator('[data-grid="3x3"]').waitFor();
        for (const s of ['a2', 'a3', 'b1', 'b2', 'b4', 'a4', 'a5', 'b5'])
          await page.locator(`[data-seat-row="${s}@crew"]`).click();
        await page.waitForFunction(() => document.querySelectorAll('[data-terminal-state="live"]').length === 9);
        await expectFits(page, width);
        await page.screenshot({ path: join(SHOTS, `grid-3x3-${width}x${height}.png`) });
        await page.keyboard.press('Control+k');
        await page.getByRole('combobox', { name: 'Command' }).fill('b');
        await new Promise((r) => setTimeout(r, 200));
        await page.screenshot({ path: join(SHOTS, `palette-${width}x${height}.png`) });
        await page.keyboard.press('Escape');
        expect(errors).toEqual([]);
      } finally {
        await chrome.close();
      }
    }, 120_000);
  }
});
