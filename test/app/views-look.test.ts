import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { PushHub } from '../../src/main/window-hub/pushes';
import { type ServeHandle, startServe } from '../../src/server/serve';
import { standInTranscript, writeClaudeStandIn } from '../restore/standin-claude';
import { REPO, RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { RENDERER_DIR, strictUrl } from './helpers';

const missing = chromiumMissing();
/** Where the screenshots go (ignored by git): open them and look. */
const SHOTS = process.env.RIGDESK_SHOTS ?? join(REPO, '.tmp', 'views');
const SIZES = [
  [1280, 800],
  [1920, 1080],
] as const;

/** A realistic rig: three pods, STAND-IN Claude seats (test/restore/standin-claude.ts) and shell seats, edges of every kind. */
function studioYaml(bin: string, root: string): string {
  const claude = (m: string) =>
    `      - { id: ${m}, runtime: claude-code, cwd: ./work, command: ${bin}, env: { CLAUDE_CONFIG_DIR: ${join(root, `cfg-${m}`)} } }`;
  const shell = (m: string) =>
    `      - { id: ${m}, runtime: shell, cwd: ./work, command: bash, args: ["--noprofile", "--norc"] }`;
  return `${[
    'name: studio',
    'pods:',
    '  - id: core',
    '    members:',
    claude('lead'),
    claude('architect'),
    shell('coder'),
    '  - id: qa',
    '    members:',
    shell('tester'),
    claude('reviewer'),
    '  - id: ops',
    '    members:',
    shell('deployer'),
    shell('scribe'),
    'edges:',
    ...[
      'lead delegates_to architect',
      'lead delegates_to coder',
      'lead delegates_to tester',
      'lead delegates_to deployer',
      'coder escalates_to lead',
      'tester escalates_to lead',
      'coder collaborates_with tester',
      'reviewer collaborates_with tester',
      'architect collaborates_with reviewer',
      'deployer collaborates_with scribe',
    ].map((e) => {
      const [from, kind, to] = e.split(' ');
      return `  - { from: ${from}, to: ${to}, kind: ${kind} }`;
    }),
  ].join('\n')}\n`;
}

/**
 * No element of the view reaches past the window's right edge (nothing cut off sideways), nor,
 * for a drawing fitted to the view (`whole`), past its bottom; a list scrolls down, never sideways.
 */
async function fits(page: Page, selector: string): Promise<string[]> {
  const whole = selector === '[data-node]';
  return page.locator(selector).evaluateAll((els, whole) => {
    const out: string[] = [];
    for (const e of els) {
      const r = e.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 || (whole && r.bottom > window.innerHeight + 1))
        out.push(`${e.getAttribute('data-node') ?? e.className}: ${Math.round(r.right)}x${Math.round(r.bottom)}`);
    }
    return out;
  }, whole);
}

/**
 * The three centre views of a realistic rig in real Chromium, at 1280x800 and 1920x1080, light and
 * dark, written as PNGs for a person to look at: the topology with every state (working, stopped,
 * exited, a decision waiting) and an open handoff, the timeline, and the restore review after a
 * reboot. Each picture is checked for what a person would notice first: nothing drawn off screen.
 */
describe.skipIf(!!missing)('the centre views, as a person sees them', () => {
  let w: RigWorld;
  let engine: Engine;
  let serve: ServeHandle;
  let monitor: ActivityMonitor;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let work: string;
  const ids: Record<string, string> = {};

  async function open(e: Engine): Promise<void> {
    engine = e;
    monitor = new ActivityMonitor(e.ports);
    await monitor.start();
    serve = await startServe({
      engine: e,
      port: 0,
      staticDir: RENDERER_DIR,
      pushes: new PushHub(e, { activityEvents: true }),
    });
  }
  async function close(): Promise<void> {
    monitor?.stop();
    await serve?.close();
  }
  /**
   * Each size, light and dark. What `check` selects must fit the window: the topology follows the
   * window's size by itself (no fit asked for), so this waits for the view to settle, then shoots.
   */
  async function shoot(name: string, check: string): Promise<void> {
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await waitFor(async () => (await fits(page, check)).length === 0, {
        what: `${name} to fit ${width}x${height}`,
        timeoutMs: 5_000,
      }).catch(() => undefined); // the assertion below names what does not fit
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await new Promise((r) => setTimeout(r, 200));
        await page.screenshot({ path: join(SHOTS, `${name}-${width}x${height}-${scheme}.png`) });
      }
      expect(await fits(page, check), `${name} at ${width}x${height}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    const bin = writeClaudeStandIn(join(w.root, 'bin'));
    const up = await dispatch(w.engine(), 'up', { spec: w.spec('studio.yaml', studioYaml(bin, w.root)) });
    if (!up.ok) throw new Error(up.message);
    for (const s of up.seats)
      if (s.outcome === 'launched' && s.launched.conversationId) ids[s.seat] = s.launched.conversationId;
    await open(w.engine());
    chrome = await launchChromium({ width: 1280, height: 800 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(strictUrl(serve));
    await page.locator('[data-seat-row="lead@studio"]').waitFor();
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await close();
    w?.cleanup();
  });

  const type = (seat: string, text: string) => {
    const pane = engine.store.sessions.live(seat)!.paneId;
    w.tmux.run(['send-keys', '-t', pane, '-l', text]);
    w.tmux.run(['send-keys', '-t', pane, 'Enter']);
  };

  it('the topology: every state, an open handoff, a seat hovered', async () => {
    type('coder@studio', 'while true; do echo "building module $RANDOM"; sleep 0.4; done');
    type('scribe@studio', 'exit');
    expect(await dispatch(engine, 'stop', { seat: 'deployer@studio' })).toMatchObject({ ok: true });
    const item = await dispatch(engine, 'queue.add', {
      seat: 'coder@studio',
      text: 'Write the parser for the new config format',
    });
    if (!item.ok) throw new Error(item.message);
    await dispatch(engine, 'queue.handoff', {
      id: item.item.id,
      seat: 'tester@studio',
      by: 'coder',
      note: 'ready for tests',
    });
    for (let i = 0; i < 4; i++)
      await dispatch(engine, 'send', { seat: 'tester@studio', text: `echo test run ${i + 1}` });
    await page.locator('[data-view-tab="topology"]').click();
    await page.locator('[data-node="coder@studio"][data-state="working"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-node="deployer@studio"][data-state="stopped"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-handoffs="1"]').waitFor({ timeout: 15_000 });
    await shoot('topology', '[data-node]');
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.locator('[data-node="coder@studio"]').hover();
    await page
      .locator('[data-preview="coder@studio"] pre')
      .filter({ hasText: 'building module' })
      .waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'topology-hover-1920x1080-light.png') });
    // A rail row's pin shows over its time on hover; the name and state stay whole.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('[data-seat-row="deployer@studio"]').hover();
    const name = page.locator('[data-seat-row="deployer@studio"] .member');
    expect(await page.locator('[data-seat-row="deployer@studio"] .unread-mark').count()).toBe(1);
    expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.screenshot({
      path: join(SHOTS, 'rail-hover-1280x800-light.png'),
      clip: { x: 0, y: 0, width: 320, height: 480 },
    });
    await page.mouse.move(5, 5);
  });

  it('the timeline of the rig, and filtered to one seat', async () => {
    await page.locator('[data-view-tab="timeline"]').click();
    await page.locator('[data-timeline-row]').first().waitFor();
    await shoot('timeline', '.tl-row');
    await page.locator('select[aria-label="seat"]').selectOption('tester@studio');
    await page.locator('[data-kind-filter="send"]').click();
    await waitFor(async () => (await page.locator('[data-timeline-row][data-kind="send"]').count()) >= 4, {
      what: 'sends',
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'timeline-filtered-1280x800-light.png') });
  });

  it('the restore review after a reboot: the plan, then the results and the decision', async () => {
    await close();
    const pids = w.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    w.tmux.kill(); // the reboot
    rmSync(standInTranscript(join(w.root, 'cfg-architect'), work, ids['architect@studio']!));
    const e = w.engine();
    expect(await dispatch(e, 'reconcile', {})).toMatchObject({ ok: true });
    await open(e);
    expect(pids.ok).toBe(true);
    await page.goto(strictUrl(serve));
    await page.locator('[data-view-tab="grid"]').click();
    await page.getByTestId('restore-offer').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SHOTS, 'offer-1280x800-light.png') });
    await page.getByRole('button', { name: 'Review the restore' }).click();
    await page.locator('[data-review-seat="lead@studio"][data-phase="plan"]').waitFor({ timeout: 15_000 });
    await shoot('review-plan', '[data-review-seat]');
    await page.getByTestId('apply-resumes').click();
    await page.getByTestId('run-outcome').waitFor({ timeout: 60_000 });
    await page.locator('[data-review-seat="architect@studio"][data-outcome="awaiting_decision"]').waitFor();
    await shoot('review-result', '[data-review-seat]');
    await page.locator('[data-view-tab="topology"]').click();
    await page.locator('[data-node="architect@studio"][data-state="needs_input"]').waitFor({ timeout: 15_000 });
    await shoot('topology-after-restore', '[data-node]');
  });
});
