import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { appWorld, type AppWorld, strictUrl } from './helpers';

const missing = chromiumMissing();

/** The window shows each seat's queue in its details (real Chromium, real engine, real tmux). */
describe.skipIf(!!missing)("a seat's queue in the window", () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    w = await appWorld('qv');
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(strictUrl(w.serve));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  it("lists items queued from the command line and queues new ones from the seat's details", async () => {
    const seat = 'lead@qv';
    await page.locator(`[data-seat-row="${seat}"]`).click();
    await page.getByRole('tab', { name: 'Seat details' }).click();
    const queue = page.getByLabel(`queue of ${seat}`);
    await queue.getByText('Nothing queued.').waitFor();
    const added = await dispatch(w.engine, 'queue.add', { seat, text: 'review the parser' });
    expect(added.ok).toBe(true);
    await queue.getByText('review the parser').waitFor({ timeout: 10_000 });
    await queue.getByLabel('work to queue').fill('write the changelog');
    await queue.getByRole('button', { name: 'Queue' }).click();
    await queue.getByText('write the changelog').waitFor({ timeout: 10_000 });
    const list = await dispatch(w.engine, 'queue.list', { seat });
    expect(list.ok && (list.items as { body: string }[]).map((i) => i.body)).toEqual([
      'review the parser',
      'write the changelog',
    ]);
    await waitFor(async () => (await queue.locator('[data-queue-item]').count()) === 2, { what: 'two items shown' });
  });
});
