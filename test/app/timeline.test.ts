import type { Page, WebSocket as PageSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/main/engine/engine';
import type { EventKind } from '../../src/main/engine/store';
import { TIMELINE_PAGE } from '../../src/renderer/src/views/Timeline';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();
const RIG = 'tl';
const SEATS = ['lead', 'worker1', 'worker2'].map((m) => `${m}@${RIG}`);
const N = 10_000;

/** 10 000 events of the rig written through the engine's own event log, every kind and seat in turn. */
export function writeEvents(engine: Engine, n: number): void {
  const kinds: [EventKind, Record<string, unknown>][] = [
    ['seat.activity', { activity: 'working', label: 'working' }],
    ['seat.activity', { activity: 'idle', label: 'idle' }],
    ['seat.send', { preview: 'run the tests', chars: 13 }],
    ['queue.created', { id: 1, preview: 'write the parser' }],
    ['seat.launch_refused', { code: 'CONVERSATION_LIVE_ELSEWHERE', message: 'owned elsewhere' }],
  ];
  const log = engine.store.events;
  engine.store.db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const [kind, data] = kinds[i % kinds.length]!;
      log.append(kind, { rig: RIG, seat: SEATS[i % SEATS.length]! }, { ...data, n: i });
    }
  })();
}

/**
 * The rig timeline (real engine, real tmux, real Chromium through `rigdesk serve`) over a log of
 * 10 000 events: the first answer holds one page, scrolling asks for the next by seq, filters by
 * seat and kind ask the engine (not the page), new events come in live, a row opens its seat.
 */
describe.skipIf(!!missing)('the rig timeline', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  type Answer = { events: { seq: number; seat: string | null }[]; more: boolean };
  const sent: { id: number; params: Record<string, unknown> }[] = [];
  const answers: Answer[] = [];
  /** Each answer by the id of what it answers: a filter's rows are known by its own answer. */
  const answerTo = new Map<number, Answer>();
  const errors: string[] = [];
  const rows = () => page.locator('[data-timeline-row]');
  const rowCount = async () => Number(await page.locator('.tl-rows').getAttribute('data-rows'));

  beforeAll(async () => {
    w = await appWorld(RIG, ['lead', 'worker1', 'worker2'], { seed: (e) => writeEvents(e, N) });
    chrome = await launchChromium({ width: 1400, height: 900 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    // What the page asks and is answered, as the wire carries it.
    page.on('websocket', (ws: PageSocket) => {
      const asked = new Set<number>();
      ws.on('framesent', (f) => {
        if (typeof f.payload !== 'string') return;
        const m = JSON.parse(f.payload);
        if (m.method === 'workspace.rigTimeline') {
          asked.add(m.id);
          sent.push({ id: m.id, params: m.params });
        }
      });
      ws.on('framereceived', (f) => {
        if (typeof f.payload !== 'string') return;
        const m = JSON.parse(f.payload);
        if (!asked.has(m.id) || !m.result?.ok) return;
        answers.push(m.result);
        answerTo.set(m.id, m.result);
      });
    });
    await page.goto(strictUrl(w.serve));
    await page.locator(`[data-seat-row="${SEATS[0]}"]`).waitFor();
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  it('opens on one page of the newest events and fetches the next only when scrolled to', async () => {
    // Opened from the palette, by name.
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Command' }).fill('Timeline view');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="timeline-more"]').waitFor({ timeout: 10_000 });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.params).toEqual({ rig: RIG, limit: TIMELINE_PAGE });
    expect(answers[0]!.events).toHaveLength(TIMELINE_PAGE);
    expect(answers[0]!.more).toBe(true);
    expect(await rowCount()).toBe(TIMELINE_PAGE);
    const newest = w.engine.store.events.list({ rig: RIG, afterSeq: 0, limit: 100_000 }).at(-1)!.seq;
    expect(Number(await rows().first().getAttribute('data-timeline-row'))).toBe(newest);
    // Scrolled to its end, the list asks for the page before the last row it holds.
    const last = Number(await rows().last().getAttribute('data-timeline-row'));
    await page.locator('[data-testid="timeline-scroll"]').evaluate((e) => e.scrollTo(0, e.scrollHeight));
    await waitFor(async () => (await rowCount()) === 2 * TIMELINE_PAGE, { what: 'the second page' });
    expect(sent).toHaveLength(2);
    expect(sent[1]!.params).toEqual({ rig: RIG, limit: TIMELINE_PAGE, beforeSeq: last });
    expect(answers[1]!.events[0]!.seq).toBeLessThan(last);
  });

  it('filters by seat and by kind in the engine, and grows live from the pushed events', async () => {
    await page.locator('select[aria-label="seat"]').selectOption(SEATS[1]!);
    await waitFor(async () => sent.length === 3 && (await rowCount()) === TIMELINE_PAGE, { what: 'the seat filter' });
    expect(sent[2]!.params).toEqual({ rig: RIG, limit: TIMELINE_PAGE, seats: [SEATS[1]] });
    expect(new Set(await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-seat'))))).toEqual(
      new Set([SEATS[1]]),
    );
    await page.locator('[data-kind-filter="send"]').click();
    // The kind filter is a request of its own (found by what it asks, not by its place: a page of
    // the seat filter may still be asked for before it on a loaded machine).
    const kindAsk = await waitFor(() => sent.findIndex((x) => 'kinds' in x.params) + 1, {
      what: 'the kind filter asked',
    });
    expect(sent[kindAsk - 1]!.params).toEqual({ rig: RIG, limit: TIMELINE_PAGE, seats: [SEATS[1]], kinds: ['send'] });
    // The rows shown are exactly that answer's: the seat filter's newest row is a send too, so a
    // first row of kind send does not yet say the new rows have come.
    const kindRows = await waitFor(() => answerTo.get(sent[kindAsk - 1]!.id), { what: 'the kind filter answered' });
    expect(kindRows.events).toHaveLength(TIMELINE_PAGE);
    const wanted = kindRows.events.map((e) => String(e.seq)).join();
    await waitFor(
      async () => (await rows().evaluateAll((els) => els.map((e) => e.dataset.timelineRow))).join() === wanted,
      {
        what: 'the rows of the kind filter',
      },
    );
    const kinds = new Set(await rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))));
    expect(kinds).toEqual(new Set(['send']));
    // A new event of that seat and kind arrives through the event push, on top; another seat's does not.
    const mine = w.engine.store.events.append('seat.send', { rig: RIG, seat: SEATS[1] }, { preview: 'LIVE-ONE' });
    w.engine.store.events.append('seat.send', { rig: RIG, seat: SEATS[2] }, { preview: 'LIVE-OTHER' });
    await page.locator(`[data-timeline-row="${mine}"]`).filter({ hasText: 'LIVE-ONE' }).waitFor({ timeout: 5000 });
    expect(Number(await rows().first().getAttribute('data-timeline-row'))).toBe(mine);
    expect(await page.locator('.tl-rows').textContent()).not.toContain('LIVE-OTHER');
    // The live rows came from the push: nothing was asked of the engine after the kind filter.
    expect(sent, JSON.stringify(sent.slice(kindAsk - 1))).toHaveLength(kindAsk);
  });

  it("a row's seat opens that seat in the grid", async () => {
    await rows().first().locator('.tl-seat').click();
    await page.locator(`[data-pane="${SEATS[1]}"].focused`).waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-view-tab="grid"]').getAttribute('aria-selected')).toBe('true');
    expect(errors).toEqual([]);
  });
});
