import type { BrowserContext, Page } from 'playwright-core';

/** The renderer's JS heap after a full GC, in bytes (Chrome DevTools Protocol). */
export async function jsHeap(page: Page, gc = true): Promise<{ used: number; total: number }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    if (gc) await cdp.send('HeapProfiler.collectGarbage');
    const h = await cdp.send('Runtime.getHeapUsage');
    return { used: h.usedSize, total: h.totalSize };
  } finally {
    await cdp.detach();
  }
}

export const screenOf = (page: Page, seat: string) =>
  page.evaluate((s) => window.__rigdeskScreens?.[s]?.text() ?? '', seat);

/** Opens a seat in the window's focused slot and waits for its live terminal to show a shell prompt. */
export async function openSeat(page: Page, seat: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), `#/seat/${encodeURIComponent(seat)}`);
  await page.locator(`[data-pane="${seat}"] [data-terminal-state="live"]`).waitFor({ timeout: 20_000 });
  await page.waitForFunction((s) => /[$#] ?$/m.test((window.__rigdeskScreens?.[s]?.text() ?? '').trimEnd()), seat, {
    polling: 50,
    timeout: 20_000,
  });
}

/**
 * Each seat is opened in the same (focused, unpinned) slot, so the ones before it are parked
 * (viewer closed on the host, a serialized snapshot kept). "N seats open" is therefore N seats
 * visited in one window: one live terminal and N-1 parked snapshots, plus the rail with N rows.
 * One fresh page per N.
 */
export async function heapWithSeatsOpen(
  browser: BrowserContext,
  url: string,
  seats: readonly string[],
  counts: readonly number[],
): Promise<{ seats: number; usedMB: number; totalMB: number }[]> {
  const out: { seats: number; usedMB: number; totalMB: number }[] = [];
  for (const n of [0, ...counts]) {
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await page.locator('[data-seat-row]').first().waitFor({ timeout: 20_000 });
      for (const seat of seats.slice(0, n)) await openSeat(page, seat);
      const h = await jsHeap(page);
      out.push({ seats: n, usedMB: h.used / 1e6, totalMB: h.total / 1e6 });
    } finally {
      await page.close();
    }
  }
  return out;
}
