import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { dispatch } from '../src/main/engine/api';
import type { Engine } from '../src/main/engine/engine';
import type { EventKind } from '../src/main/engine/store';
import { rigTimeline } from '../src/main/engine/workspace/rig-timeline';
import { layoutTopology } from '../src/renderer/src/views/topology-layout';
import type { Topology } from '../src/shared/contract';
import { chromiumMissing, launchChromium } from '../test/app/chromium';
import { appWorld, podRigYaml } from '../test/app/helpers';
import { waitFor } from '../test/support/tmux';

/**
 * The centre's views, in one run (real engine, real tmux, real Chromium over `rigdesk serve`):
 *  1. a 50-seat rig drawn: dagre's layout alone (in Node, the page's own code), and in the page from
 *     the Topology tab's click to every node and edge drawn;
 *  2. state changes redrawn without a new layout: seats stopped and launched, the page's layout
 *     count before and after, and each change's delay from its event row to its node;
 *  3. the timeline of a rig with 10 000 events: from the Timeline tab's click to its first page on
 *     screen, and one page read in the engine (the first and the 50th, keyset by seq).
 *
 * Run: npx vitest run --config bench/vitest.bench.config.mts bench/views.bench.ts
 * Env: RDBENCH_SEATS=50 RDBENCH_EVENTS=10000 RDBENCH_REPS=7 RDBENCH_CHANGES=6
 */
const SEATS = Number(process.env.RDBENCH_SEATS ?? 50);
const EVENTS = Number(process.env.RDBENCH_EVENTS ?? 10_000);
const REPS = Number(process.env.RDBENCH_REPS ?? 7);
const CHANGES = Number(process.env.RDBENCH_CHANGES ?? 6);
const TARGET = { firstLayoutMs: 500, timelineOpenMs: 1000, layoutsOnStateChange: 0 } as const;
const RESULTS_DIR = resolve(__dirname, 'results');
const missing = chromiumMissing();
const results: Record<string, unknown> = { targets: TARGET, seats: SEATS, events: EVENTS };
const log = (s: string) => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

afterAll(() => {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
  const out = join(RESULTS_DIR, `views-${stamp}.json`);
  const machine = {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    memGB: Math.round(os.totalmem() / 1e9),
    node: process.version,
    loadavg: os.loadavg(),
  };
  writeFileSync(out, JSON.stringify({ ...results, machine, date: new Date().toISOString() }, null, 2));
  log(`wrote ${out}`);
});

function writeEvents(engine: Engine, n: number): void {
  const kinds: EventKind[] = ['seat.activity', 'seat.send', 'queue.created', 'seat.launch_refused', 'decision.opened'];
  engine.store.db.transaction(() => {
    for (let i = 0; i < n; i++)
      engine.store.events.append(kinds[i % kinds.length]!, { rig: 'big', seat: `p1m${(i % 10) + 1}@big` }, { n: i });
  })();
}

/** In the page: from a click on a tab until each selector matches at least its count, timed with the page's own clock. */
async function clickUntil(page: Page, tab: string, done: [string, number][]): Promise<number> {
  return page.evaluate(
    ({ tab, done }) =>
      new Promise<number>((res) => {
        const ok = () => done.every(([sel, n]) => document.querySelectorAll(sel).length >= n);
        const t0 = performance.now();
        const mo = new MutationObserver(() => ok() && (mo.disconnect(), res(performance.now() - t0)));
        mo.observe(document.body, { subtree: true, childList: true, attributes: true });
        (document.querySelector(`[data-view-tab="${tab}"]`) as HTMLElement).click();
      }),
    { tab, done },
  );
}

function layoutInNode(t: Topology): { ms: number[]; median: number } {
  const ms: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    layoutTopology(t, () => 'local');
    ms.push(performance.now() - t0);
  }
  return { ms, median: pct(ms, 50) };
}

it.skipIf(!!missing)(
  `a ${SEATS}-seat graph laid out once, state changes redrawn without a layout, a ${EVENTS}-event timeline`,
  async () => {
    const w = await appWorld('big', [], {
      yaml: podRigYaml('big', SEATS),
      monitor: true,
      seed: (e) => writeEvents(e, EVENTS),
    });
    const chrome = await launchChromium({ width: 1920, height: 1080 });
    try {
      await waitFor(() => w.world.sessions().length === SEATS, { what: `${SEATS} seats up`, timeoutMs: 120_000 });
      const topo = await dispatch(w.engine, 'topology', { rig: 'big' });
      if (!topo.ok) throw new Error(topo.message);
      const node = layoutInNode({ rigs: topo.rigs });
      const edgeCount = topo.rigs[0]!.edges.length;
      const drawn: [string, number][] = [
        ['[data-node]', SEATS],
        ['[data-edge] path.react-flow__edge-path[d]', edgeCount],
      ];
      const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
      const inPage: number[] = [];
      for (let i = 0; i < REPS; i++) {
        // A fresh page that opens on the grid, so the click below pays for the first layout (the
        // page before is gone first, so its own save of the layout cannot land after this one).
        await page.goto('about:blank');
        const saved = await dispatch(w.engine, 'workspace.layout', {});
        if (saved.ok && saved.layout)
          await dispatch(w.engine, 'workspace.saveLayout', { layout: { ...saved.layout, view: 'grid' } });
        await page.goto(w.serve.url);
        await page.locator('[data-seat-row="p1m1@big"]').waitFor();
        await page.locator('[data-view-tab="grid"][aria-selected="true"]').waitFor();
        expect(await page.locator('.topology').count()).toBe(0);
        inPage.push(await clickUntil(page, 'topology', drawn));
        expect(await page.locator('.topology').getAttribute('data-layouts')).toBe('1');
      }
      const med = pct(inPage, 50);
      results.firstLayout = {
        nodeLayoutMs: node.ms,
        nodeLayoutMedian: node.median,
        clickToDrawnMs: inPage,
        median: med,
        p95: pct(inPage, 95),
        edges: edgeCount,
        pass: med < TARGET.firstLayoutMs,
      };
      log(`dagre layout of ${SEATS} seats, ${edgeCount} edges (Node): median ${node.median.toFixed(1)} ms`);
      log(
        `Topology tab to ${SEATS} nodes and ${edgeCount} edges drawn: median ${med.toFixed(0)} ms (${inPage.map((x) => x.toFixed(0)).join(', ')}) — ${verdict(med < TARGET.firstLayoutMs)} (< ${TARGET.firstLayoutMs})`,
      );
      results.stateChanges = await stateChanges(w.engine, page);
      results.timeline = await timeline(w.engine, page);
      expect(results).toBeTruthy();
    } finally {
      await chrome.close();
      await w.cleanup();
    }
  },
);

/** Seats stopped and launched again: each change's delay from its event row to its node, and no layout for any. */
async function stateChanges(engine: Engine, page: Page) {
  const layouts = async () => Number(await page.locator('.topology').getAttribute('data-layouts'));
  const before = await layouts();
  const delays: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const seat = `p${(i % 5) + 1}m${(i % 9) + 2}@big`;
    for (const [method, word, kind] of [
      ['stop', 'stopped', 'seat.stop'],
      ['launch', 'idle', 'seat.launch'],
    ] as const) {
      const armed = page.evaluate(
        ({ seat, word }) =>
          new Promise<number>((res) => {
            const el = document.querySelector(`[data-node="${seat}"]`)!;
            const mo = new MutationObserver(() => {
              if (el.getAttribute('data-state') === word) mo.disconnect(), res(Date.now());
            });
            mo.observe(el, { attributes: true, attributeFilter: ['data-state'] });
          }),
        { seat, word },
      );
      const r = await dispatch(engine, method, { seat });
      if (!r.ok) throw new Error(`${method} ${seat}: ${r.message}`);
      const at = await armed;
      const ev = engine.store.events.list({ seat, kind }).at(-1)!;
      delays.push(at - ev.at);
    }
  }
  const after = await layouts();
  const p95 = pct(delays, 95);
  log(
    `${delays.length} state changes: event row to node p95 ${p95} ms (${delays.join(', ')}); layouts ${before} → ${after} — ${verdict(after === before)} (no new layout)`,
  );
  return { delaysMs: delays, p95, layoutsBefore: before, layoutsAfter: after, pass: after === before };
}

/** The 10 000-event timeline: click to the first page on screen, and a page read in the engine. */
async function timeline(engine: Engine, page: Page) {
  const opens: number[] = [];
  for (let i = 0; i < REPS; i++) {
    await page.locator('[data-view-tab="grid"]').click();
    opens.push(await clickUntil(page, 'timeline', [['[data-timeline-row]', 100]]));
  }
  const pageMs = (before?: number) => {
    const ms: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const r = rigTimeline(engine.ports, { rig: 'big', limit: 100, ...(before ? { beforeSeq: before } : {}) });
      ms.push(performance.now() - t0);
      if (!r.ok || r.events.length !== 100) throw new Error('short page');
    }
    return pct(ms, 50);
  };
  const newest = engine.store.events.list({ rig: 'big', limit: 1_000_000 }).at(-1)!.seq;
  const first = pageMs();
  const fiftieth = pageMs(newest - 49 * 100);
  const med = pct(opens, 50);
  log(
    `timeline of ${EVENTS} events: tab to first page ${med.toFixed(0)} ms median (${opens.map((x) => x.toFixed(0)).join(', ')}) — ${verdict(med < TARGET.timelineOpenMs)} (< ${TARGET.timelineOpenMs}); one page in the engine: first ${first.toFixed(2)} ms, 50th ${fiftieth.toFixed(2)} ms`,
  );
  return {
    clickToFirstPageMs: opens,
    median: med,
    p95: pct(opens, 95),
    enginePageMs: { first, fiftieth },
    pass: med < TARGET.timelineOpenMs,
  };
}
