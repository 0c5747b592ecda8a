import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { DEFAULT_LAYOUT } from '../../src/renderer/src/state/grid';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { type AppWorld, appWorld, strictUrl, openRestoreDecision } from './helpers';
import { RECORD_NOTIFICATIONS } from './notifications';

const missing = chromiumMissing();
const SHOTS = '/tmp/i35a-shots';
const MEMBERS = Array.from({ length: 12 }, (_, i) => `m${i + 1}`);
const seat = (m: string) => `${m}@first`;

/**
 * The first screen (issue 35, part 4) and a burst of waits, with shell seats in real Chromium over
 * the serve host (real engine, real tmux). Shell seats never reach needs_input by themselves, so
 * the seats that need the person here are stopped seats with an open restore decision, written to
 * the store as a restore writes them.
 */
describe.skipIf(!!missing)('the first screen and a burst of waits', () => {
  let w: AppWorld;
  let chrome: Chrome;
  let page: Page;
  let errors: string[] = [];

  /** A stopped seat with an open restore decision: it needs the person. */
  const openDecision = (m: string) => openRestoreDecision(w.engine, seat(m), 'first');
  const slots = () =>
    page
      .locator('[data-pane]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-slot')}:${e.getAttribute('data-pane')}`));
  const notes = () => page.evaluate(() => window.__notes.map(({ title, body }) => ({ title, body })));

  beforeAll(async () => {
    w = await appWorld('first', MEMBERS, { monitor: true });
    expect((await dispatch(w.engine, 'stop', { seat: seat('m12') })).ok).toBe(true);
    expect((await dispatch(w.engine, 'stop', { seat: seat('m11') })).ok).toBe(true);
    openDecision('m12');
    ({ chrome, page, errors } = await openWindow(strictUrl(w.serve), {
      viewport: { width: 1280, height: 800 },
      initScripts: [RECORD_NOTIFICATIONS],
      notifications: true,
    }));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  it('a never-saved layout opens with the seat that needs the person first, then the others, in every slot', async () => {
    await waitFor(async () => (await slots()).length === 4, { what: 'four panes', timeoutMs: 15_000 });
    // m12 waits on a decision; m1..m3 are idle, in spec order; m11 (stopped) comes after them all.
    expect(await slots()).toEqual(['1:m12@first', '2:m1@first', '3:m2@first', '4:m3@first']);
    expect(await page.title()).toBe('(1) Rigdesk');
    // What was waiting when the window opened is what the person sees on opening it: not news.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await notes()).toEqual([]);
    // The fill is not saved: the next window fills by what waits then.
    expect(await dispatch(w.engine, 'workspace.layout', {})).toEqual({ ok: true });
    await page.screenshot({ path: join(SHOTS, 'first-screen-1280x800.png') });
  });

  it("the topology's code is fetched once the first screen is drawn, before its tab is opened", async () => {
    const fetched = () =>
      page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .some((e) => /\/assets\/Topology-[\w-]+\.js$/.test(new URL(e.name).pathname)),
      );
    await waitFor(fetched, { what: 'the Topology chunk fetched while the grid shows', timeoutMs: 10_000 });
    expect(await page.locator('[data-view-tab="grid"]').getAttribute('aria-selected')).toBe('true');
  });

  it('a burst of ten new waits is one notification that says ten; the title counts all eleven', async () => {
    for (const m of MEMBERS.slice(0, 10)) if (m !== 'm1') await dispatch(w.engine, 'stop', { seat: seat(m) });
    for (const m of [...MEMBERS.slice(1, 10), 'm11']) openDecision(m);
    w.engine.store.events.append(
      'decision.opened',
      { rig: 'first', seat: seat('m11') },
      { reason: 'transcript_missing' },
    );
    await page.waitForFunction(() => document.title === '(11) Rigdesk', undefined, { timeout: 15_000 });
    await waitFor(async () => (await notes()).length > 0, { what: 'a notification', timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 1000));
    const got = await notes();
    expect(got).toHaveLength(1);
    expect(got[0]!.title).toBe('10 seats need you');
    expect(got[0]!.body).toMatch(/^m2@first, m3@first, m4@first, …$/);
  });

  it('a layout the person changed is saved and kept: the next window is not refilled, even with empty slots', async () => {
    const pane = page.locator('[data-pane="m12@first"]');
    await pane.getByRole('button', { name: 'Actions for m12@first' }).click();
    await pane.getByRole('menuitem', { name: 'Close this slot' }).click();
    await page.locator('[data-slot="1"][aria-label="slot 1, empty"]').waitFor();
    await page.waitForTimeout(400); // the layout is saved a moment after it changes
    const saved = await dispatch(w.engine, 'workspace.layout', {});
    expect(saved.ok && saved.layout?.slots[0]).toBe(null);
    await page.reload();
    await page.locator('[data-slot="1"][aria-label="slot 1, empty"]').waitFor();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await slots()).toEqual(['2:m1@first', '3:m2@first', '4:m3@first']);
    // A saved layout of nothing but empty slots stays empty too.
    expect((await dispatch(w.engine, 'workspace.saveLayout', { layout: DEFAULT_LAYOUT })).ok).toBe(true);
    await page.reload();
    await page.locator('[data-slot="4"][aria-label="slot 4, empty"]').waitFor();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await slots()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
