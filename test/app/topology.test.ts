import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();

/** Two pods, six shell seats, five edges of all three kinds (ops has none). */
const YAML = `name: duo
pods:
  - id: alpha
    members:
${['lead', 'coder', 'tester'].map((m) => `      - { id: ${m}, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }`).join('\n')}
  - id: beta
    members:
${['reviewer', 'docs', 'ops'].map((m) => `      - { id: ${m}, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }`).join('\n')}
edges:
  - { from: lead, to: coder, kind: delegates_to }
  - { from: lead, to: reviewer, kind: delegates_to }
  - { from: coder, to: lead, kind: escalates_to }
  - { from: coder, to: tester, kind: collaborates_with }
  - { from: reviewer, to: docs, kind: collaborates_with }
`;
const SEATS = ['lead', 'coder', 'tester', 'reviewer', 'docs', 'ops'].map((m) => `${m}@duo`);
const EDGES = [
  ['lead@duo->coder@duo', 'delegates_to'],
  ['lead@duo->reviewer@duo', 'delegates_to'],
  ['coder@duo->lead@duo', 'escalates_to'],
  ['coder@duo->tester@duo', 'collaborates_with'],
  ['reviewer@duo->docs@duo', 'collaborates_with'],
];

/**
 * The topology view of a real rig (real engine, real tmux, real Chromium through `rigdesk serve`):
 * the nodes and edges with their stable hooks, a state change reaching its node within a second
 * without a new layout, the hover preview from the seat's real screen, the node's actions, the
 * keyboard, the open handoffs on their edge, and the view kept in the saved layout.
 */
describe.skipIf(!!missing)('the topology view', () => {
  let w: AppWorld;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const errors: string[] = [];
  const node = (seat: string, state?: string) =>
    page.locator(`[data-node="${seat}"]${state ? `[data-state="${state}"]` : ''}`);
  const layouts = async () => Number(await page.locator('.topology').getAttribute('data-layouts'));

  beforeAll(async () => {
    w = await appWorld('duo', [], { yaml: YAML, monitor: true });
    chrome = await launchChromium({ width: 1400, height: 900 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(w.serve));
    await page.locator('[data-view-tab="topology"]').click();
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  it('draws six seat nodes with their state and five edges with their kind', async () => {
    await waitFor(async () => (await page.locator('[data-node][data-state="idle"]').count()) === 6, {
      what: 'six idle nodes',
      timeoutMs: 30_000,
    });
    const nodes = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')));
    expect(nodes.sort()).toEqual([...SEATS].sort());
    const edges = await page
      .locator('[data-edge]')
      .evaluateAll((els) =>
        els.map((e) => [
          e.getAttribute('data-edge'),
          e.getAttribute('data-kind'),
          e.querySelector('path.react-flow__edge-path')?.getAttribute('d') ?? '',
          e.querySelector('path.react-flow__edge-path')?.getAttribute('marker-start') ?? '',
          e.querySelector('path.react-flow__edge-path')?.getAttribute('marker-end') ?? '',
          getComputedStyle(e.querySelector('path.react-flow__edge-path')!).strokeDasharray,
        ]),
      );
    expect(edges.map(([id, kind]) => [id, kind]).sort()).toEqual([...EDGES].sort());
    for (const [id, kind, d, start, end, dash] of edges) {
      expect(d, `${id} is drawn`).toMatch(/^M/);
      // Each kind drawn its own way: an arrow, a dashed arrow, two heads.
      expect(end, `${id} has an arrow head`).toContain('url(');
      expect(start !== '', `${id} two-headed`).toBe(kind === 'collaborates_with');
      expect(dash !== 'none', `${id} dashed`).toBe(kind === 'escalates_to');
    }
    // Hosts and pods are drawn as frames around their seats.
    expect(await page.locator('[data-frame="pod"]').count()).toBe(2);
    expect(await page.locator('[data-frame="host"]').count()).toBe(1);
  });

  it('an edge says its kind on hover', async () => {
    const at = await page.locator('[data-edge="coder@duo->lead@duo"] path.react-flow__edge-path').evaluate((p) => {
      const path = p as SVGPathElement;
      const pt = path.getPointAtLength(path.getTotalLength() / 2);
      const m = path.getScreenCTM()!;
      return { x: pt.x * m.a + pt.y * m.c + m.e, y: pt.x * m.b + pt.y * m.d + m.f };
    });
    await page.mouse.move(at.x, at.y);
    await page
      .locator('[data-edge-label="coder@duo->lead@duo"]')
      .filter({ hasText: 'coder escalates to lead' })
      .waitFor();
    await page.mouse.move(5, 5);
  });

  it('a seat stopped through the CLI shows on its node within 1 s of its stop, and nothing is laid out again', async () => {
    const before = await layouts();
    expect(before).toBeGreaterThan(0);
    // The page notes when the node changes, on the same clock as the engine's event rows.
    await page.evaluate(() => {
      const el = document.querySelector('[data-node="ops@duo"]')!;
      const w = window as unknown as { __stoppedAt?: number };
      new MutationObserver(() => {
        if (el.getAttribute('data-state') === 'stopped') w.__stoppedAt ??= Date.now();
      }).observe(el, { attributes: true, attributeFilter: ['data-state'] });
    });
    const stop = await w.world.cli(['stop', 'ops@duo', '--json']);
    expect(stop.code, stop.stdout + stop.stderr).toBe(0);
    const stopped = w.engine.store.events.list({ seat: 'ops@duo', kind: 'seat.stop' }).at(-1)!;
    await node('ops@duo', 'stopped').waitFor({ timeout: Math.max(1, stopped.at + 1000 - Date.now()) });
    const at = await page.evaluate(() => (window as unknown as { __stoppedAt?: number }).__stoppedAt);
    process.stdout.write(`seat.stop event → node stopped in ${at! - stopped.at} ms\n`);
    expect(at! - stopped.at).toBeLessThan(1000);
    expect(await layouts()).toBe(before);
    await expect(node('ops@duo').textContent()).resolves.toContain('stopped');
  });

  it('hovering a running seat shows the last lines of its screen', async () => {
    const pane = w.engine.store.sessions.live('tester@duo')!.paneId;
    w.world.tmux.run(['send-keys', '-t', pane, '-l', 'echo PREVIEW-$((40+2))']);
    w.world.tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(() => w.world.tmux.capture(pane).includes('PREVIEW-42'), { what: 'the mark on screen' });
    await node('tester@duo').hover();
    await page.locator('[data-preview="tester@duo"] pre').filter({ hasText: 'PREVIEW-42' }).waitFor({ timeout: 5000 });
    await page.mouse.move(5, 5);
    await page.locator('[data-preview]').waitFor({ state: 'detached' });
  });

  it("the node's menu has the rail's actions: Launch starts the stopped seat", async () => {
    await node('ops@duo').getByRole('button', { name: 'Actions for ops@duo' }).click();
    const menu = page.locator('[data-node-menu="ops@duo"]');
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(
      expect.arrayContaining(['Open in the grid', 'Pin in the grid', 'Launch', 'Launch fresh', 'Queue work…']),
    );
    await menu.getByRole('menuitem', { name: 'Launch', exact: true }).click();
    await node('ops@duo', 'idle').waitFor({ timeout: 15_000 });
    expect(w.engine.store.sessions.live('ops@duo')).toBeTruthy();
  });

  it('arrow keys move between nodes; a click focuses the seat in the grid; Enter opens it there', async () => {
    await node('lead@duo').click();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-node'))).toBe('lead@duo');
    await node('lead@duo', 'idle').and(page.locator('.focused')).waitFor();
    await page.keyboard.press('ArrowDown');
    const below = await page.evaluate(() => document.activeElement?.getAttribute('data-node'));
    expect(['coder@duo', 'reviewer@duo', 'tester@duo']).toContain(below);
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-node'))).toBe('lead@duo');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator(`[data-pane="${below}"].focused`).waitFor();
    expect(await page.locator('[data-view-tab="grid"]').getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('[data-pane="lead@duo"]').count()).toBe(1);
  });

  it('an open handoff between two seats shows on their edge, and leaves when it is done', async () => {
    await page.keyboard.press('Control+Shift+G');
    await page.locator('.topology').waitFor();
    const add = await dispatch(w.engine, 'queue.add', { seat: 'coder@duo', text: 'write the parser\nthen test it' });
    if (!add.ok) throw new Error(add.message);
    const moved = await dispatch(w.engine, 'queue.handoff', { id: add.item.id, seat: 'tester@duo', by: 'coder' });
    expect(moved.ok).toBe(true);
    const badge = page.locator('[data-edge-label="coder@duo->tester@duo"] [data-handoffs="1"]');
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.getAttribute('title')).toContain('write the parser');
    expect(await dispatch(w.engine, 'queue.done', { id: add.item.id, note: 'parsed' })).toMatchObject({ ok: true });
    await badge.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('a rail row opens its terminal from any view: the grid comes back with that seat focused', async () => {
    await page.locator('[data-view-tab="timeline"]').click();
    await page.locator('[data-seat-row="ops@duo"]').click();
    await page.locator('[data-pane="ops@duo"].focused').waitFor();
    expect(await page.locator('[data-view-tab="grid"]').getAttribute('aria-selected')).toBe('true');
    await page.locator('[data-view-tab="topology"]').click();
    await page.locator('[data-node="lead@duo"]').waitFor();
  });

  it('a resized window keeps the whole rig in view, until the person pans it; fit view hands it back', async () => {
    /** The nodes drawn (partly) outside the window. */
    const outside = () =>
      page.locator('[data-node]').evaluateAll((els) =>
        els
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight;
          })
          .map((e) => e.getAttribute('data-node')),
      );
    const view = () => page.locator('.react-flow__viewport').getAttribute('style');
    /** Lets a resize reach the view: its observer, then the frame the fit is drawn in. */
    const frames = () =>
      page.evaluate(
        () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 100)))),
      );
    const allInView = (what: string) =>
      waitFor(async () => (await outside()).length === 0, { what, timeoutMs: 5_000 }).catch(async (e: Error) => {
        throw new Error(`${e.message}; outside: ${JSON.stringify(await outside())}`);
      });
    /** Fit view from the keyboard: the control's button, focused, and Enter. */
    const fitView = async () => {
      await page.locator('.react-flow__controls-fitview').focus();
      await page.keyboard.press('Enter');
    };
    try {
      await page.setViewportSize({ width: 1920, height: 1080 });
      await allInView('every node in view at 1920x1080');
      await page.setViewportSize({ width: 1280, height: 800 });
      await allInView('every node in view at 1280x800, with no fit asked for');
      // A small rig can be in view before the fit to the new size is drawn: the person drags after it.
      await frames();

      // The person drags the canvas: from then on the view stays where they put it.
      const pane = (await page.locator('.react-flow__pane').boundingBox())!;
      const y = pane.y + pane.height / 2;
      const before = await view();
      await page.mouse.move(pane.x + 6, y);
      await page.mouse.down();
      await page.mouse.move(pane.x + 106, y + 40, { steps: 5 });
      await page.mouse.up();
      const panned = await view();
      expect(panned, 'the drag moved the view').not.toBe(before);
      await page.setViewportSize({ width: 1920, height: 1080 });
      await frames();
      expect(await view(), 'a resize leaves a view the person moved where it is').toBe(panned);

      // Fit view brings the rig back, and the view follows the window again.
      await fitView();
      await allInView('every node in view after fit view');
      await page.setViewportSize({ width: 1280, height: 800 });
      await allInView('every node in view at 1280x800, following again');
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
      await fitView();
    }
  });

  it("zoomed far out, a seat is a tile of its state with its hooks, the pods' labels say who calls; zoomed in, the words are back", async () => {
    const scale = async () =>
      Number(/scale\(([\d.]+)\)/.exec((await page.locator('.react-flow__viewport').getAttribute('style')) ?? '')?.[1]);
    // The session of one seat ends by itself: beta then has a seat that calls the person.
    w.world.tmux.run(['kill-session', '-t', 'ops@duo']);
    await node('ops@duo', 'exited').waitFor({ timeout: 10_000 });
    await page.locator('.react-flow__controls-zoomout').focus();
    while ((await scale()) >= 0.3) await page.keyboard.press('Enter');
    await page.locator('.topology[data-zoom="far"]').waitFor({ timeout: 5_000 });

    // Every seat still a node with its hooks, drawn as a tile: its mark, not its words.
    const far = await page
      .locator('[data-node]')
      .evaluateAll((els) =>
        els.map((e) => [
          e.getAttribute('data-node'),
          e.classList.contains('far'),
          !!e.querySelector('.member'),
          e.getAttribute('aria-label'),
        ]),
      );
    expect(far.map(([seat]) => seat).sort()).toEqual([...SEATS].sort());
    for (const [seat, tile, words, label] of far) {
      expect(tile && !words, `${seat} is a tile`).toBe(true);
      expect(label).toContain(seat);
    }
    expect(await node('ops@duo', 'exited').textContent()).toContain('✕');
    // The edges are one SVG under the seats, each with its hooks and its kind's arrow.
    expect(await page.locator('[data-edge] path.react-flow__edge-path[d]').count()).toBe(EDGES.length);
    expect(await page.locator('.react-flow__edge').count(), 'no React Flow edge this far out').toBe(0);
    expect(await page.locator('svg.far-wires').count()).toBe(1);
    for (const [edge, kind] of EDGES)
      expect(await page.locator(`[data-edge="${edge}"]`).getAttribute('data-kind')).toBe(kind);
    const arrow = (edge: string, end: string) =>
      page.locator(`[data-edge="${edge}"] path`).getAttribute(`marker-${end}`);
    expect(await arrow('lead@duo->coder@duo', 'end')).toBe('url(#far-arrow-delegates)');
    expect(await arrow('coder@duo->tester@duo', 'start')).toBe('url(#far-arrow-collaborates)');

    // The labels are drawn above the seats, readable at this zoom, and name what calls.
    const tag = (label: string) => page.locator(`[data-far-tag="${label}"]`);
    await expect.poll(() => tag('beta').locator('[data-far-calling]').textContent()).toContain('1 exited');
    expect(await tag('alpha').locator('[data-far-calling]').count()).toBe(0);
    for (const label of ['duo', 'alpha', 'beta']) {
      const b = (await tag(label).boundingBox())!;
      expect(b.height, `${label}'s label reads at about 11 px`).toBeGreaterThan(11);
      expect(b.height).toBeLessThan(30);
    }
    const onTop = await page.evaluate(() => {
      const z = (sel: string) => Number(getComputedStyle(document.querySelector(sel)!).zIndex) || 0;
      const seats = [...document.querySelectorAll('.react-flow__node-seat')].map(
        (e) => Number(getComputedStyle(e).zIndex) || 0,
      );
      return z('.react-flow__viewport-portal') > Math.max(...seats);
    });
    expect(onTop, 'the far labels are stacked over every seat').toBe(true);

    // A far tile keeps the keyboard: the arrow keys move between tiles.
    await node('lead@duo').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-node'))).not.toBe('lead@duo');

    // Fit view zooms back in: the words come back and the far labels go.
    await page.locator('.react-flow__controls-fitview').focus();
    await page.keyboard.press('Enter');
    await page.locator('.topology[data-zoom="near"]').waitFor({ timeout: 5_000 });
    expect(await page.locator('.seat-node.far').count()).toBe(0);
    expect(await page.locator('[data-far-tag]').count()).toBe(0);
    expect(await page.locator('svg.far-wires').count()).toBe(0);
    expect(await page.locator('.react-flow__edge').count()).toBe(EDGES.length);
    expect(await node('lead@duo').locator('.member').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('the chosen view is kept in the saved layout and comes back on a reload', async () => {
    await waitFor(
      async () => {
        const r = await dispatch(w.engine, 'workspace.layout', {});
        return r.ok && r.layout?.view === 'topology';
      },
      { what: 'the view saved' },
    );
    await page.reload();
    await page.locator('[data-node="lead@duo"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-view-tab="topology"]').getAttribute('aria-selected')).toBe('true');
    expect(errors).toEqual([]);
  });
});
