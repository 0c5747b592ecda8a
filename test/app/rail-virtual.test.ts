import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, podRigYaml, strictUrl } from './helpers';

const missing = chromiumMissing();
/** Eight pods of ten: at 1280x800 the rail shows about a fifth of them. */
const SEATS = 80;

/**
 * The rail as a virtual list, on a rig far taller than the window (real engine, real tmux, real
 * Chromium): only the rows near the view are in the DOM, and every path to a row (the arrow keys,
 * Ctrl+J, the palette, a state change that reorders a pod) still reaches it and shows it.
 */
describe.skipIf(!!missing)('the rail of a big rig in Chromium', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    w = await appWorld('many', [], { yaml: podRigYaml('many', SEATS) });
    chrome = await launchChromium({ width: 1280, height: 800 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(w.serve));
    await page.locator('[data-seat-row="p1m1@many"][data-state="idle"]').waitFor({ timeout: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  const focusedRow = () => page.evaluate(() => document.activeElement?.getAttribute('data-seat-row'));
  /** The row is in the DOM and wholly inside the rail's visible box. */
  const inView = (seat: string) =>
    page.evaluate((s) => {
      const row = document.querySelector(`[data-seat-row="${s}"]`);
      const rail = document.querySelector('.rail');
      if (!row || !rail) return false;
      const a = row.getBoundingClientRect();
      const b = rail.getBoundingClientRect();
      return a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    }, seat);

  it(`keeps only the rows near the view in the DOM, in their pod sections, and the counts still cover all ${SEATS}`, async () => {
    const rows = await page.locator('[data-seat-row]').count();
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(SEATS / 2);
    await waitFor(async () => Number(await page.locator('[data-count="idle"] .num').textContent()) === SEATS, {
      what: 'every seat counted idle',
    });
    // The last pod is not drawn until the rail is scrolled to it; then it is, under its rig and pod.
    expect(await page.locator('[data-seat-row="p8m1@many"]').count()).toBe(0);
    await page.locator('.rail').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.locator('[data-rail-rig="many"] [data-rail-pod="pod8"] [data-seat-row="p8m10@many"]').waitFor();
    await page.locator('.rail').evaluate((el) => (el.scrollTop = 0));
    await page.locator('[data-seat-row="p1m1@many"]').waitFor();
  });

  it('ArrowUp on the first row reaches the last seat, far below what is drawn, and ArrowDown wraps back', async () => {
    await page.locator('[data-seat-row="p1m1@many"]').focus();
    await page.keyboard.press('ArrowUp');
    await waitFor(async () => (await focusedRow()) === 'p8m10@many', { what: 'the last row focused' });
    expect(await inView('p8m10@many')).toBe(true);
    await page.keyboard.press('ArrowDown');
    await waitFor(async () => (await focusedRow()) === 'p1m1@many', { what: 'the first row focused again' });
    expect(await inView('p1m1@many')).toBe(true);
    // Down through a pod boundary one row at a time: each row gets the keyboard in turn.
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowDown');
    expect(await focusedRow()).toBe('p2m3@many');
    expect(await inView('p2m3@many')).toBe(true);
  });

  it('a seat opened from the palette, far down the rail, is scrolled into view and marked focused', async () => {
    await page.locator('.rail').evaluate((el) => (el.scrollTop = 0));
    await page.keyboard.press('Control+k');
    await page.keyboard.type('p7m6@many');
    await page.keyboard.press('Enter');
    await page.locator('[data-seat-row="p7m6@many"].focused').waitFor({ timeout: 10_000 });
    await waitFor(() => inView('p7m6@many'), { what: 'p7m6 in view' });
  });

  it('a state change reorders its pod: a seat that needs you moves to its pod top, and Ctrl+J brings its row into view', async () => {
    await page.locator('.rail').evaluate((el) => (el.scrollTop = 0));
    // A stopped seat with an open restore decision needs the person (written to the store as a
    // restore would, with its event, so the window reads the decisions again).
    const seat = 'p6m9@many';
    expect((await dispatch(w.engine, 'stop', { seat })).ok).toBe(true);
    w.engine.store.restore.decisions.open({
      seat,
      rig: 'many',
      reason: 'transcript_missing',
      runtime: 'shell',
      conversationId: null,
      snapshotId: null,
      choices: ['fresh', 'leave_stopped'],
      evidence: {},
    });
    w.engine.store.events.append('decision.opened', { rig: 'many', seat }, { reason: 'transcript_missing' });
    await waitFor(async () => Number(await page.locator('[data-count="needs_input"] .num').textContent()) === 1, {
      what: 'one seat needs you',
      timeoutMs: 15_000,
    });
    expect(await page.locator(`[data-seat-row="${seat}"]`).count()).toBe(0);
    await page.keyboard.press('Control+j');
    await page.locator(`[data-seat-row="${seat}"][data-state="needs_input"].focused`).waitFor({ timeout: 10_000 });
    await waitFor(() => inView(seat), { what: `${seat} in view` });
    const pod6 = await page
      .locator('[data-rail-pod="pod6"] [data-seat-row]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-seat-row')));
    expect(pod6[0]).toBe(seat);
    expect(errors).toEqual([]);
  });
});
